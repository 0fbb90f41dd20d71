/* tests/test_bvh_dynamic.c — the dynamic AABB tree (src/bvh/bvh_dynamic*.c) against brute force.
 * Every query is checked against an exhaustive loop over the live objects' fat boxes, computed in
 * double precision where rounding matters (cases within a small tolerance of a boundary are left
 * unjudged); the tree's quality against an independent full-sweep SAH build written here. */
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

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static float rng_float(rng *r, float lo, float hi)
{
    return lo + (hi - lo) * (float)((double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0));
}

static int rng_int(rng *r, int n)
{
    return (int)(rng_next(r) % (uint64_t)n);
}

static sr_vec3 rng_vec3(rng *r, float lo, float hi)
{
    return (sr_vec3){rng_float(r, lo, hi), rng_float(r, lo, hi), rng_float(r, lo, hi)};
}

static sr_vec3 rng_direction(rng *r)
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

static sr_aabb tight_box(const object *o)
{
    return (sr_aabb){sr_vec3_sub(o->centre, o->half), sr_vec3_add(o->centre, o->half)};
}

static bool contains(sr_aabb outer, sr_aabb inner)
{
    return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
           inner.max.x <= outer.max.x && inner.max.y <= outer.max.y && inner.max.z <= outer.max.z;
}

static sr_aabb expand(sr_aabb b, float m)
{
    return (sr_aabb){{b.min.x - m, b.min.y - m, b.min.z - m}, {b.max.x + m, b.max.y + m, b.max.z + m}};
}

/* The move rule as documented in bvh_dynamic.h (Box2D v2.4 MoveProxy); returns whether the
 * stored fat box changes. */
static bool model_move(const world *w, object *o, sr_vec3 displacement)
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

static void random_shape(rng *r, object *o)
{
    o->is_sphere = rng_int(r, 2) == 0;
    /* Sizes like a game's: mostly small props, a few large ones. */
    float size = rng_int(r, 20) == 0 ? rng_float(r, 2.0f, 6.0f) : rng_float(r, 0.2f, 1.5f);
    o->radius = size;
    o->half = o->is_sphere ? sr_vec3_splat(size)
                           : (sr_vec3){size, size * rng_float(r, 0.3f, 1.5f), size * rng_float(r, 0.3f, 1.5f)};
}

static int insert_object(world *w, sr_dynamic_tree *tree, rng *r)
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

static int random_live(world *w, rng *r)
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
static verdict brute_ray_box(const sr_ray *ray, sr_aabb box)
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

static verdict brute_sphere_box(sr_sphere s, sr_aabb box)
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
static void brute_frustum_box(const sr_frustum *f, sr_aabb box, verdict *outside, verdict *inside)
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
static double exact_hit(const object *o, const sr_ray *ray, double tmin)
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

static void collector_reset(collector *c, const sr_dynamic_tree *tree, const world *w)
{
    memset(c->mark, 0, sizeof c->mark);
    c->count = c->duplicates = c->stale = 0;
    c->tree = tree;
    c->w = w;
    c->best = -1;
    c->best_t = INFINITY;
}

static void collect(collector *c, sr_dynamic_proxy proxy, uint64_t user_data)
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

static bool collect_overlap(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    collect(user, proxy, user_data);
    return true;
}

static float collect_ray(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    collect(user, proxy, user_data);
    return ray->tmax;
}

static bool collect_frustum(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    collector *c = user;
    collect(c, proxy, user_data);
    if (user_data < MAX_OBJECTS)
        c->containment[user_data] = containment;
    return true;
}

static float closest_hit(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
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

static sr_ray make_ray(sr_vec3 origin, sr_vec3 direction, float tmin, float tmax)
{
    return sr_ray_make(origin, direction, tmin, tmax);
}

/* Gribb & Hartmann plane extraction for zero-to-one depth, written here independently of geom. */
static sr_frustum frustum_from(sr_mat4 m)
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

static sr_frustum random_frustum(rng *r, float far_z)
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

static void check_no_extras(const collector *c)
{
    cr_assert_eq(c->duplicates, 0, "a proxy was reported twice");
    cr_assert_eq(c->stale, 0, "a callback got a stale handle or bad user data");
}

static void check_queries(const world *w, const sr_dynamic_tree *tree, rng *r, collector *c, int rounds)
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
static void check_fat_boxes(const world *w, const sr_dynamic_tree *tree)
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

static double half_area(double lo[3], double hi[3])
{
    double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
    return x * y + y * z + z * x;
}

static double box_half_area(sr_aabb b)
{
    double lo[3] = {b.min.x, b.min.y, b.min.z}, hi[3] = {b.max.x, b.max.y, b.max.z};
    return half_area(lo, hi);
}

static bool census_node(void *user, const sr_dynamic_tree_node_info *n)
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

static double census_sah(const sr_dynamic_tree *tree, node_census *c)
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

static int compare_axis(const ref_item *a, const ref_item *b, int axis)
{
    return a->centre[axis] < b->centre[axis] ? -1 : (a->centre[axis] > b->centre[axis] ? 1 : 0);
}
static int compare_x(const void *a, const void *b)
{
    return compare_axis(a, b, 0);
}
static int compare_y(const void *a, const void *b)
{
    return compare_axis(a, b, 1);
}
static int compare_z(const void *a, const void *b)
{
    return compare_axis(a, b, 2);
}
static int (*const compare_by_axis[3])(const void *, const void *) = {compare_x, compare_y, compare_z};

/* Full-sweep SAH build (sorted centroids, every split position, all axes): returns the sum of the
 * half areas of all nodes of the tree it would build. Independent of the code under test. */
static double reference_area_sum(ref_item *items, int n, double *prefix)
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

static double reference_sah(const world *w)
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

/* The tree's structure and SAH statistics against the node walk and the model. */
static double check_structure(const world *w, const sr_dynamic_tree *tree)
{
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    node_census *census = malloc(sizeof *census);
    cr_assert(census);
    double sah = census_sah(tree, census);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert_eq(stats.proxy_count, w->live_count);
    cr_assert_eq(census->leaves, w->live_count);
    cr_assert_eq(stats.node_count, 2 * w->live_count - 1);
    cr_assert_eq(census->nodes, 2 * w->live_count - 1);
    cr_assert_eq(stats.height, census->max_depth, "height %d, deepest leaf at depth %d", stats.height,
                 census->max_depth);
    cr_assert(fabs(stats.sah_cost - sah) <= 1e-6 * sah, "reported SAH %.9g, recomputed %.9g", stats.sah_cost, sah);
    for (int i = 0; i < MAX_OBJECTS; i++)
        cr_assert_eq(census->leaf_mark[i], w->objects[i].live ? 1 : 0, "object %d appears %d times as a leaf", i,
                     census->leaf_mark[i]);
    free(census);
    return sah;
}

static void check_random_operations(bool exact_insertion)
{
    world *w = calloc(1, sizeof *w);
    collector *c = calloc(1, sizeof *c);
    cr_assert(w && c);
    w->margin = 0.1f;
    w->multiplier = 4.0f;
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(
                     &(sr_dynamic_tree_desc){.initial_capacity = 16, .exact_insertion = exact_insertion}, &tree, &err),
                 SR_OK, "%s", err.message);
    rng r = {12345};
    for (int i = 0; i < 3000; i++)
        insert_object(w, tree, &r);

    int changed_count = 0, kept_count = 0;
    const int operations = 100000, check_every = 5000;
    for (int op = 1; op <= operations; op++) {
        int kind = rng_int(&r, 1000);
        if ((kind < 85 && w->live_count < 4000) || w->live_count < 2000) {
            insert_object(w, tree, &r);
        } else if (kind < 170 && w->live_count > 2000) {
            int k = random_live(w, &r);
            cr_assert_eq(sr_dynamic_tree_remove(tree, w->objects[k].proxy, &err), SR_OK, "%s", err.message);
            w->objects[k].live = false;
            w->live_count--;
        } else {
            int k = random_live(w, &r);
            object *o = &w->objects[k];
            sr_vec3 displacement;
            if (kind < 200) { /* teleport */
                sr_vec3 to = rng_vec3(&r, -WORLD, WORLD);
                displacement = sr_vec3_sub(to, o->centre);
            } else if (kind < 300) { /* fast object */
                displacement = rng_vec3(&r, -1.0f, 1.0f);
            } else { /* most: small per-step motion */
                displacement = rng_vec3(&r, -0.06f, 0.06f);
            }
            o->centre = sr_vec3_add(o->centre, displacement);
            sr_vec3 predicted = kind % 2 == 0 && kind >= 200 ? displacement : (sr_vec3){0, 0, 0};
            bool expected = model_move(w, o, predicted), changed = !expected;
            cr_assert_eq(sr_dynamic_tree_move(tree, o->proxy, tight_box(o), predicted, &changed, &err), SR_OK, "%s",
                         err.message);
            cr_assert_eq(changed, expected, "op %d: move of object %d changed=%d, rule says %d", op, k, changed,
                         expected);
            changed ? changed_count++ : kept_count++;
        }
        if (op % check_every == 0) {
            check_structure(w, tree);
            check_fat_boxes(w, tree);
            check_queries(w, tree, &r, c, 12);
        }
    }
    /* Both branches of the move rule were exercised. */
    cr_assert(changed_count > 1000 && kept_count > 1000, "moves: %d changed, %d kept", changed_count, kept_count);

    /* Quality: within 1.5x of a fresh full-sweep SAH build over the same fat boxes. */
    double tree_sah = check_structure(w, tree);
    double reference = reference_sah(w);
    cr_log_info("%s insertion, after %d operations: %d proxies, SAH %.2f, reference %.2f (%.3fx), height %d",
                exact_insertion ? "exact" : "greedy", operations, w->live_count, tree_sah, reference,
                tree_sah / reference, sr_dynamic_tree_get_stats(tree).height);
    cr_assert(tree_sah <= 1.5 * reference, "SAH %.3f vs reference %.3f", tree_sah, reference);

    /* Rebuild: same proxies and handles, valid, answers the same, cost close to the reference. */
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    double rebuilt_sah = check_structure(w, tree);
    cr_log_info("rebuilt: SAH %.2f (%.3fx reference), height %d", rebuilt_sah, rebuilt_sah / reference,
                sr_dynamic_tree_get_stats(tree).height);
    cr_assert(rebuilt_sah <= 1.2 * reference && rebuilt_sah >= 0.8 * reference, "rebuilt SAH %.3f vs reference %.3f",
              rebuilt_sah, reference);
    check_fat_boxes(w, tree);
    check_queries(w, tree, &r, c, 12);

    /* And the tree keeps working after the rebuild. */
    for (int op = 0; op < 2000; op++) {
        int k = random_live(w, &r);
        object *o = &w->objects[k];
        o->centre = sr_vec3_add(o->centre, rng_vec3(&r, -0.5f, 0.5f));
        bool expected = model_move(w, o, (sr_vec3){0, 0, 0}), changed;
        cr_assert_eq(sr_dynamic_tree_move(tree, o->proxy, tight_box(o), (sr_vec3){0, 0, 0}, &changed, &err), SR_OK);
        cr_assert_eq(changed, expected);
    }
    check_structure(w, tree);
    check_queries(w, tree, &r, c, 4);
    sr_dynamic_tree_destroy(tree);
    free(w);
    free(c);
}

Test(bvh_dynamic, random_operations_match_brute_force, .timeout = 120)
{
    check_random_operations(false);
}

Test(bvh_dynamic, random_operations_match_brute_force_with_exact_insertion, .timeout = 120)
{
    check_random_operations(true);
}

/* ---- handles ---- */

Test(bvh_dynamic, stale_and_invalid_handles_are_detected)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    sr_aabb box = {{0, 0, 0}, {1, 1, 1}};
    sr_dynamic_proxy a, b, c;
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 1, &a, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 2, &b, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, box, 3, &c, &err), SR_OK);

    /* Brute force over a window of the handle space: exactly the three live handles are valid. */
    int capacity = sr_dynamic_tree_get_stats(tree).node_capacity;
    for (uint32_t index = 0; index < (uint32_t)capacity + 4; index++) {
        for (uint32_t generation = 0; generation < 4; generation++) {
            sr_dynamic_proxy p = {index, generation};
            bool live = (index == a.index && generation == a.generation) ||
                        (index == b.index && generation == b.generation) ||
                        (index == c.index && generation == c.generation);
            cr_assert_eq(sr_dynamic_tree_proxy_is_valid(tree, p), live, "handle (%u, %u)", index, generation);
            if (live)
                continue;
            cr_assert_eq(sr_dynamic_tree_get(tree, p, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_move(tree, p, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_remove(tree, p, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert(strstr(err.message, "stale or invalid") != NULL, "message: %s", err.message);
        }
    }
    sr_dynamic_proxy far_out = {UINT32_MAX, 1};
    cr_assert_eq(sr_dynamic_tree_remove(tree, far_out, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_remove(tree, SR_DYNAMIC_PROXY_NULL, &err), SR_ERROR_INVALID_ARGUMENT);

    /* A removed handle is stale, also after its slot is reused by a new proxy. */
    cr_assert_eq(sr_dynamic_tree_remove(tree, b, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_remove(tree, b, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_proxy d;
    for (int i = 0; i < 8; i++) { /* churn so that b's slot is handed out again */
        cr_assert_eq(sr_dynamic_tree_insert(tree, box, 4, &d, &err), SR_OK);
        if (d.index == b.index)
            break;
        cr_assert_eq(sr_dynamic_tree_remove(tree, d, &err), SR_OK);
    }
    cr_assert_eq(d.index, b.index, "the freed slot was not reused");
    cr_assert_neq(d.generation, b.generation);
    cr_assert_eq(sr_dynamic_tree_move(tree, b, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_get(tree, b, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    uint64_t user_data = 0;
    cr_assert_eq(sr_dynamic_tree_get(tree, d, NULL, &user_data, &err), SR_OK);
    cr_assert_eq(user_data, 4u);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, 3);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Handles survive a rebuild. */
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK);
    cr_assert(sr_dynamic_tree_proxy_is_valid(tree, a) && sr_dynamic_tree_proxy_is_valid(tree, c) &&
              sr_dynamic_tree_proxy_is_valid(tree, d));
    cr_assert(!sr_dynamic_tree_proxy_is_valid(tree, b));

    /* NULL tree. */
    cr_assert(!sr_dynamic_tree_proxy_is_valid(NULL, a));
    cr_assert_eq(sr_dynamic_tree_remove(NULL, a, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_move(NULL, a, box, (sr_vec3){0, 0, 0}, NULL, NULL), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_tree_destroy(tree);
    sr_dynamic_tree_destroy(NULL);
}

Test(bvh_dynamic, handles_stay_stale_when_slots_are_reused)
{
    /* Churn until every slot has served as leaf, internal node and free slot several times, keeping
     * every handle ever issued. Then brute force over every slot and a window of generations that
     * covers all issued ones: exactly the live handles are valid, and stale handles (also those
     * whose slot is now an internal node) are refused by every function taking a handle. */
    enum { ISSUED = 6000, LIVE = 150 };
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = 8}, &tree, &err), SR_OK);
    sr_dynamic_proxy *issued = malloc(sizeof *issued * ISSUED);
    bool *live = calloc(ISSUED, sizeof *live);
    cr_assert(issued && live);
    rng r = {4242};
    int issued_count = 0, live_count = 0;
    uint32_t max_generation = 0;
    while (issued_count < ISSUED) {
        if (live_count < LIVE || rng_int(&r, 2) == 0) {
            sr_vec3 centre = rng_vec3(&r, -30.0f, 30.0f), half = rng_vec3(&r, 0.1f, 2.0f);
            sr_aabb box = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
            cr_assert_eq(sr_dynamic_tree_insert(tree, box, (uint64_t)issued_count, &issued[issued_count], &err), SR_OK);
            cr_assert(issued[issued_count].generation != 0);
            if (issued[issued_count].generation > max_generation)
                max_generation = issued[issued_count].generation;
            live[issued_count++] = true;
            live_count++;
        } else {
            int k = rng_int(&r, issued_count);
            while (!live[k])
                k = (k + 1) % issued_count;
            if (rng_int(&r, 3) == 0) { /* a move that reinserts: the slot keeps its proxy */
                sr_vec3 centre = rng_vec3(&r, -30.0f, 30.0f);
                bool changed;
                cr_assert_eq(sr_dynamic_tree_move(tree, issued[k],
                                                  (sr_aabb){centre, sr_vec3_add(centre, (sr_vec3){1, 1, 1})},
                                                  (sr_vec3){0, 0, 0}, &changed, &err),
                             SR_OK);
            } else {
                cr_assert_eq(sr_dynamic_tree_remove(tree, issued[k], &err), SR_OK);
                live[k] = false;
                live_count--;
            }
        }
    }
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    cr_assert(max_generation > 8, "slots were not reused often enough (max generation %u)", max_generation);

    /* A slot holds at most one live proxy: its generation per slot (0: none). */
    int capacity = sr_dynamic_tree_get_stats(tree).node_capacity;
    uint32_t *live_generation = calloc((size_t)capacity, sizeof *live_generation);
    cr_assert(live_generation);
    for (int k = 0; k < issued_count; k++) {
        cr_assert(issued[k].index < (uint32_t)capacity);
        if (live[k]) {
            cr_assert_eq(live_generation[issued[k].index], 0u, "two live proxies in slot %u", issued[k].index);
            live_generation[issued[k].index] = issued[k].generation;
        }
    }
    int valid_seen = 0;
    sr_aabb box = {{0, 0, 0}, {1, 1, 1}};
    for (uint32_t index = 0; index < (uint32_t)capacity; index++) {
        for (uint32_t generation = 0; generation <= max_generation + 2; generation++) {
            sr_dynamic_proxy p = {index, generation};
            bool expected = generation != 0 && live_generation[index] == generation;
            cr_assert_eq(sr_dynamic_tree_proxy_is_valid(tree, p), expected, "handle (%u, %u)", index, generation);
            valid_seen += expected;
            if (expected)
                continue;
            cr_assert_eq(sr_dynamic_tree_get(tree, p, NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_move(tree, p, box, (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
            cr_assert_eq(sr_dynamic_tree_remove(tree, p, &err), SR_ERROR_INVALID_ARGUMENT);
        }
    }
    cr_assert_eq(valid_seen, live_count);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, live_count);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    free(live_generation);
    free(issued);
    free(live);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, bad_boxes_and_arguments_are_refused)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    sr_dynamic_proxy p, q;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 7, &p, &err), SR_OK);
    const sr_aabb bad[] = {
        {{NAN, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {1, NAN, 1}},       {{1, 0, 0}, {0, 1, 1}},
        {{0, 0, 2}, {1, 1, 1}},   {{-INFINITY, 0, 0}, {1, 1, 1}}, {{0, 0, 0}, {INFINITY, 1, 1}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        q = (sr_dynamic_proxy){9, 9};
        cr_assert_eq(sr_dynamic_tree_insert(tree, bad[i], 0, &q, &err), SR_ERROR_INVALID_ARGUMENT, "box %zu", i);
        cr_assert_eq(q.generation, 0u, "a refused insert returns the null handle");
        cr_assert_eq(sr_dynamic_tree_move(tree, p, bad[i], (sr_vec3){0, 0, 0}, NULL, &err), SR_ERROR_INVALID_ARGUMENT,
                     "box %zu", i);
    }
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, (sr_vec3){NAN, 0, 0}, NULL, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, NULL, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_insert(NULL, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &q, &err), SR_ERROR_INVALID_ARGUMENT);
    /* Nothing changed: one proxy, its box the original fat box. */
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, 1);
    sr_aabb fat;
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.x, -0.1f, 1e-6f);
    cr_assert_float_eq(fat.max.z, 1.1f, 1e-6f);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Finite boxes whose fat box overflows to infinity are refused too. */
    sr_dynamic_tree *huge_margin;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = 1e38f}, &huge_margin, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(huge_margin, (sr_aabb){{0, 0, 0}, {FLT_MAX, 1, 1}}, 0, &q, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_get_stats(huge_margin).proxy_count, 0);
    sr_dynamic_tree_destroy(huge_margin);

    /* Queries refuse NULL callbacks and NaN shapes. */
    cr_assert_eq(sr_dynamic_tree_query_aabb(tree, fat, NULL, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(
        sr_dynamic_tree_query_aabb(tree, (sr_aabb){{NAN, 0, 0}, {1, 1, 1}}, collect_overlap, NULL, &err).status,
        SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_query_sphere(tree, (sr_sphere){{0, 0, 0}, -1.0f}, collect_overlap, NULL, &err).status,
                 SR_ERROR_INVALID_ARGUMENT);
    sr_ray bad_ray = make_ray((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 1.0f, 0.0f);
    cr_assert_eq(sr_dynamic_tree_ray_cast(tree, &bad_ray, collect_ray, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_ray_cast(tree, NULL, collect_ray, NULL, &err).status, SR_ERROR_INVALID_ARGUMENT);
    sr_frustum nan_frustum = {{{{NAN, 0, 0}, 0}}};
    cr_assert_eq(sr_dynamic_tree_query_frustum(tree, &nan_frustum, collect_frustum, NULL, &err).status,
                 SR_ERROR_INVALID_ARGUMENT);

    /* Bad descriptions. */
    sr_dynamic_tree *other = tree; /* any non-NULL value: a failed create must reset it */
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = -1.0f}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_null(other);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = NAN}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = -5}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.displacement_multiplier = INFINITY}, &other, &err),
                 SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_create(NULL, NULL, &err), SR_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(sr_dynamic_tree_reserve(tree, -1, &err), SR_ERROR_INVALID_ARGUMENT);
    sr_dynamic_tree_destroy(tree);
}

/* ---- empty trees and small cases ---- */

static bool never_called_overlap(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    (*(int *)user)++;
    return true;
}
static float never_called_ray(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    (*(int *)user)++;
    return ray->tmax;
}
static bool never_called_frustum(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment c)
{
    (void)proxy, (void)user_data, (void)c;
    (*(int *)user)++;
    return true;
}
static bool never_called_node(void *user, const sr_dynamic_tree_node_info *n)
{
    (void)n;
    (*(int *)user)++;
    return true;
}

static void check_empty(const sr_dynamic_tree *tree)
{
    int calls = 0;
    sr_error err;
    sr_aabb everything = {{-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    sr_dynamic_tree_query_stats s[5];
    s[0] = sr_dynamic_tree_query_aabb(tree, everything, never_called_overlap, &calls, &err);
    s[1] = sr_dynamic_tree_query_sphere(tree, (sr_sphere){{0, 0, 0}, 1e30f}, never_called_overlap, &calls, &err);
    sr_ray ray = make_ray((sr_vec3){0, 0, 0}, (sr_vec3){1, 0, 0}, 0.0f, INFINITY);
    s[2] = sr_dynamic_tree_ray_cast(tree, &ray, never_called_ray, &calls, &err);
    sr_frustum all = {{{{1, 0, 0}, 1e30f},
                       {{-1, 0, 0}, 1e30f},
                       {{0, 1, 0}, 1e30f},
                       {{0, -1, 0}, 1e30f},
                       {{0, 0, 1}, 1e30f},
                       {{0, 0, -1}, 1e30f}}};
    s[3] = sr_dynamic_tree_query_frustum(tree, &all, never_called_frustum, &calls, &err);
    s[4] = sr_dynamic_tree_visit_nodes(tree, never_called_node, &calls, &err);
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(s[i].status, SR_OK);
        cr_assert_eq(s[i].nodes_visited, 0);
        cr_assert_eq(s[i].proxies_reported, 0);
    }
    cr_assert_eq(calls, 0);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert_eq(stats.proxy_count, 0);
    cr_assert_eq(stats.node_count, 0);
    cr_assert_eq(stats.height, 0);
    cr_assert_eq(stats.sah_cost, 0.0);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
}

Test(bvh_dynamic, empty_tree_answers_nothing)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){0}, &tree, &err), SR_OK);
    check_empty(tree);
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK);
    check_empty(tree);
    /* Emptied again after use. */
    sr_dynamic_proxy p[3];
    for (int i = 0; i < 3; i++)
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{i, 0, 0}, {i + 1.0f, 1, 1}}, (uint64_t)i, &p[i], &err),
                     SR_OK);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(sr_dynamic_tree_remove(tree, p[i], &err), SR_OK);
    check_empty(tree);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, move_follows_the_fat_box_rule)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(
        sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.margin = 0.5f, .displacement_multiplier = 2.0f}, &tree, &err),
        SR_OK);
    sr_dynamic_proxy p, other;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{5, 5, 5}, {6, 6, 6}}, 1, &other, &err), SR_OK);
    bool changed = true;
    sr_aabb fat;
    /* Inside the fat box [-0.5, 1.5]: the tree is left alone. */
    cr_assert_eq(
        sr_dynamic_tree_move(tree, p, (sr_aabb){{0.4f, 0, 0}, {1.4f, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
        SR_OK);
    cr_assert(!changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_eq(fat.min.x, -0.5f);
    cr_assert_eq(fat.max.x, 1.5f);
    /* Leaving it: new fat box around the new box, extended by 2 x displacement along +x. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{1, 0, 0}, {2, 1, 1}}, (sr_vec3){0.25f, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.x, 0.5f, 1e-6f);
    cr_assert_float_eq(fat.max.x, 3.0f, 1e-6f);
    cr_assert_float_eq(fat.min.y, -0.5f, 1e-6f);
    cr_assert_float_eq(fat.max.y, 1.5f, 1e-6f);
    /* Negative displacement extends the min side. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0, 0}, {-2, 1, 1}}, (sr_vec3){0, -1, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.y, -2.5f, 1e-6f);
    cr_assert_float_eq(fat.max.y, 1.5f, 1e-6f);
    /* Still covered, and the stale prediction leaves at most 4 x margin = 2 units of slack beyond
     * the new fat box (y from -2.5 = -0.5 - 2): kept. */
    cr_assert_eq(sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0, 0}, {-2, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(!changed);
    /* Still covered but the slack exceeds 4 x margin (y min 0.1 - 0.5 - 2 = -2.4 > -2.5): the
     * needlessly large fat box is replaced by a fresh one. */
    cr_assert_eq(
        sr_dynamic_tree_move(tree, p, (sr_aabb){{-3, 0.1f, 0}, {-2, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err), SR_OK);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_get(tree, p, &fat, NULL, &err), SR_OK);
    cr_assert_float_eq(fat.min.y, -0.4f, 1e-6f);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* no_margin: fat boxes are the boxes; any change reinserts. */
    sr_dynamic_tree *exact;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &exact, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_insert(exact, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, 0, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_get(exact, p, &fat, NULL, &err), SR_OK);
    cr_assert_eq(fat.min.x, 0.0f);
    cr_assert_eq(fat.max.x, 1.0f);
    cr_assert_eq(sr_dynamic_tree_move(exact, p, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(!changed);
    cr_assert_eq(sr_dynamic_tree_move(exact, p, (sr_aabb){{0, 0, 0}, {0.5f, 1, 1}}, (sr_vec3){0, 0, 0}, &changed, &err),
                 SR_OK);
    cr_assert(changed);
    sr_dynamic_tree_destroy(exact);
    sr_dynamic_tree_destroy(tree);
}

/* ---- ray callback contract ---- */

typedef struct ray_log {
    int calls;
    float stop_value;
    float tmax_seen[64];
} ray_log;

static float stop_at_first(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy, (void)user_data;
    ray_log *log = user;
    log->tmax_seen[log->calls++ % 64] = ray->tmax;
    return log->stop_value;
}

static float clip_at_entry(void *user, const sr_ray *ray, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    ray_log *log = user;
    log->tmax_seen[log->calls++ % 64] = ray->tmax;
    /* Box k spans x in [2k, 2k + 1] (fat: from 2k - 0.1); the ray starts at x = -5 along +x. */
    float t = (float)(2 * user_data) + 4.9f;
    return t < ray->tmax ? t : ray->tmax;
}

Test(bvh_dynamic, ray_callback_clips_and_stops)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    /* A row of 20 unit boxes along +x, inserted in a scrambled order. */
    for (int i = 0; i < 20; i++) {
        int k = (i * 7) % 20;
        sr_dynamic_proxy p;
        cr_assert_eq(
            sr_dynamic_tree_insert(tree, (sr_aabb){{2.0f * k, 0, 0}, {2.0f * k + 1, 1, 1}}, (uint64_t)k, &p, &err),
            SR_OK);
    }
    sr_ray ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 0.0f, 1000.0f);
    /* Without clipping every box is a candidate. */
    ray_log log = {.stop_value = 1000.0f};
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 20);
    cr_assert_eq(s.proxies_reported, 20);
    cr_assert(!s.stopped);
    /* 0 stops after the first candidate. */
    log = (ray_log){.stop_value = 0.0f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 1);
    cr_assert(s.stopped);
    /* NaN stops too. */
    log = (ray_log){.stop_value = NAN};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(log.calls, 1);
    cr_assert(s.stopped);
    /* Clipping at each hit: the nearer child is visited first, so the nearest box (k = 0) comes
     * first and, once the ray is clipped at its entry, no other box is entered before tmax. */
    log = (ray_log){0};
    s = sr_dynamic_tree_ray_cast(tree, &ray, clip_at_entry, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert(!s.stopped);
    cr_assert_eq(log.calls, 1, "ordered traversal: %d candidates after clipping at the nearest", log.calls);
    cr_assert_eq(log.tmax_seen[0], 1000.0f);
    /* A ray starting past box 12 reports boxes 13..19 only (tmin clips the start). */
    ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 5.0f + 25.2f, 1000.0f);
    log = (ray_log){.stop_value = 1000.0f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(log.calls, 7);
    /* A ray with tmin == tmax (a point at t = 7.5, x = 2.5, inside box 1 only): returning ray->tmax
     * goes on (the "continue" rule wins over "<= tmin stops"); NaN stops. */
    ray = make_ray((sr_vec3){-5.0f, 0.5f, 0.5f}, (sr_vec3){1, 0, 0}, 7.5f, 7.5f);
    log = (ray_log){.stop_value = 7.5f};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert_eq(s.status, SR_OK);
    cr_assert_eq(log.calls, 1, "%d boxes contain the point", log.calls);
    cr_assert(!s.stopped);
    log = (ray_log){.stop_value = NAN};
    s = sr_dynamic_tree_ray_cast(tree, &ray, stop_at_first, &log, &err);
    cr_assert(s.stopped && log.calls == 1);
    sr_dynamic_tree_destroy(tree);
}

/* ---- degenerate deep trees and allocation failures ---- */

typedef struct failing_allocator {
    int remaining; /* allocations still allowed; < 0: unlimited */
    int refused;
} failing_allocator;

static void *failing_allocate(size_t size, void *user)
{
    failing_allocator *f = user;
    if (f->remaining == 0) {
        f->refused++;
        return NULL;
    }
    if (f->remaining > 0)
        f->remaining--;
    return malloc(size);
}

static void *failing_reallocate(void *pointer, size_t size, void *user)
{
    failing_allocator *f = user;
    if (f->remaining == 0) {
        f->refused++;
        return NULL;
    }
    if (f->remaining > 0)
        f->remaining--;
    return realloc(pointer, size);
}

static void failing_release(void *pointer, void *user)
{
    (void)user;
    free(pointer);
}

typedef struct nested_count {
    int count;
    bool seen[1000];
} nested_count;

static bool count_nested(void *user, sr_dynamic_proxy proxy, uint64_t user_data)
{
    (void)proxy;
    nested_count *n = user;
    n->count++;
    if (user_data < 1000)
        n->seen[user_data] = true;
    return true;
}

Test(bvh_dynamic, deep_trees_and_allocation_failures)
{
    failing_allocator hook = {.remaining = -1};
    sr_set_allocator(&(sr_allocator){failing_allocate, failing_reallocate, failing_release, &hook});
    sr_error err;
    sr_dynamic_tree *tree = NULL;

    /* Creation fails cleanly. */
    hook.remaining = 0;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_null(tree);
    hook.remaining = 1; /* the tree struct, but not its pool */
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_null(tree);

    /* Nested boxes, each containing all earlier ones: SAH insertion puts each new box beside the
     * root and no rotation helps, so the tree is a chain far taller than the fixed query stack. */
    hook.remaining = -1;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.initial_capacity = 4}, &tree, &err), SR_OK);
    const int n = 600;
    sr_dynamic_proxy proxies[600];
    for (int i = 0; i < n; i++) {
        float h = 1.0f + (float)i;
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{-h, -h, -h}, {h, h, h}}, (uint64_t)i, &proxies[i], &err),
                     SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
    cr_assert(stats.height > 300, "height %d", stats.height);

    /* Queries on the tall tree allocate their stack once and answer like brute force: a box around
     * the point (0, 0, k + 1.05) overlaps fat boxes (half size i + 1 + 0.1) with i >= k. */
    for (int k = 0; k < n; k += 37) {
        nested_count found = {0};
        float z = (float)k + 1.05f;
        sr_dynamic_tree_query_stats s =
            sr_dynamic_tree_query_aabb(tree, (sr_aabb){{0, 0, z}, {0, 0, z}}, count_nested, &found, &err);
        cr_assert_eq(s.status, SR_OK, "%s", err.message);
        cr_assert_eq(found.count, n - k, "k %d: %d found", k, found.count);
        for (int i = 0; i < n; i++)
            cr_assert_eq(found.seen[i], i >= k);
    }

    /* With the allocator refusing, that stack cannot be had: reported, nothing visited. */
    hook.remaining = 0;
    nested_count found = {0};
    sr_dynamic_tree_query_stats s =
        sr_dynamic_tree_query_aabb(tree, (sr_aabb){{0, 0, 0}, {1, 1, 1}}, count_nested, &found, &err);
    cr_assert_eq(s.status, SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(err.status, SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(found.count, 0);
    /* Rebuild needs temporary memory: refused, and the tree is unchanged. */
    double sah_before = sr_dynamic_tree_get_stats(tree).sah_cost;
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_ERROR_OUT_OF_MEMORY);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).sah_cost, sah_before);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).height, stats.height);

    /* Inserting until the pool must grow: refused with OUT_OF_MEMORY, the tree stays valid. */
    int inserted = 0;
    sr_status status = SR_OK;
    while (status == SR_OK && inserted < 100000) {
        sr_dynamic_proxy p;
        float h = 2000.0f + (float)inserted;
        status =
            sr_dynamic_tree_insert(tree, (sr_aabb){{h, 0, 0}, {h + 1, 1, 1}}, 5000u + (uint64_t)inserted, &p, &err);
        if (status == SR_OK)
            inserted++;
    }
    cr_assert_eq(status, SR_ERROR_OUT_OF_MEMORY, "%s", err.message);
    cr_assert(hook.refused > 0);
    cr_assert_eq(sr_dynamic_tree_get_stats(tree).proxy_count, n + inserted);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    /* Moves and removes never allocate, so they still work. */
    bool changed;
    cr_assert_eq(sr_dynamic_tree_move(tree, proxies[10], (sr_aabb){{50, 50, 50}, {51, 51, 51}}, (sr_vec3){0, 0, 0},
                                      &changed, &err),
                 SR_OK, "%s", err.message);
    cr_assert(changed);
    cr_assert_eq(sr_dynamic_tree_remove(tree, proxies[20], &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);

    /* Memory back: everything works again, rebuild flattens the chain. */
    hook.remaining = -1;
    sr_dynamic_proxy p;
    cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{-1, -1, -1}, {1, 1, 1}}, 9999, &p, &err), SR_OK);
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    cr_assert(sr_dynamic_tree_proxy_is_valid(tree, proxies[0]) && sr_dynamic_tree_proxy_is_valid(tree, p));
    cr_assert(!sr_dynamic_tree_proxy_is_valid(tree, proxies[20]));
    sr_dynamic_tree_destroy(tree);
    sr_set_allocator(NULL);
}

/* ---- the insertion search: the SAH-optimal sibling, or the greedy descent's ---- */

typedef struct tree_copy {
    int count;
    int parent[1200];
    int child[1200][2]; /* -1 for leaves */
    sr_aabb box[1200];
    int path[1200]; /* path[depth]: the last node seen at that depth (pre-order) */
} tree_copy;

static bool copy_node(void *user, const sr_dynamic_tree_node_info *n)
{
    tree_copy *t = user;
    cr_assert(t->count < 1200 && n->depth < 1200);
    int self = t->count, parent = n->depth == 0 ? -1 : t->path[n->depth - 1];
    t->parent[self] = parent;
    t->child[self][0] = t->child[self][1] = -1;
    if (parent >= 0)
        t->child[parent][t->child[parent][0] < 0 ? 0 : 1] = self; /* pre-order: child[0] comes first */
    t->box[self] = n->box;
    t->path[n->depth] = self;
    t->count++;
    return true;
}

static double union_half_area(sr_aabb a, sr_aabb b)
{
    double lo[3] = {fmin(a.min.x, b.min.x), fmin(a.min.y, b.min.y), fmin(a.min.z, b.min.z)};
    double hi[3] = {fmax(a.max.x, b.max.x), fmax(a.max.y, b.max.y), fmax(a.max.z, b.max.z)};
    return half_area(lo, hi);
}

/* The insertion cost of L as the sibling of node s: SA(s u L) + the growth of s's ancestors. */
static double sibling_cost(const tree_copy *t, int s, sr_aabb leaf)
{
    double cost = union_half_area(t->box[s], leaf);
    for (int a = t->parent[s]; a >= 0; a = t->parent[a])
        cost += union_half_area(t->box[a], leaf) - box_half_area(t->box[a]);
    return cost;
}

/* Box2D v3's greedy descent, written from its description in double precision: weigh both
 * children, go on into the one whose subtree grows least while its lower bound (its induced cost
 * + SA(L)) can beat the best cost seen. Costs come from sibling_cost, not from running sums. */
static double greedy_cost(const tree_copy *t, sr_aabb leaf)
{
    double leaf_area = box_half_area(leaf), best = sibling_cost(t, 0, leaf);
    int node = 0;
    while (t->child[node][0] >= 0 && sibling_cost(t, node, leaf) - box_half_area(t->box[node]) + leaf_area < best) {
        int near = -1;
        double near_induced = INFINITY;
        for (int k = 0; k < 2; k++) {
            int c = t->child[node][k];
            double cost = sibling_cost(t, c, leaf);
            best = fmin(best, cost);
            double induced = t->child[c][0] >= 0 ? cost - box_half_area(t->box[c]) : INFINITY;
            if (induced < near_induced)
                near = c, near_induced = induced;
        }
        if (near < 0)
            break;
        node = near;
    }
    return best;
}

/* Inserting leaf L as the sibling of node S adds SA(L) + SA(S u L) + the growth of S's ancestors
 * to the summed node areas; rotations afterwards only lower the sum. So after each insertion the
 * sum must not exceed before + SA(L) + the cost of the sibling the search should find: the
 * minimum over all S by brute force over every node of a copy of the tree (exact insertion), or
 * the greedy descent's choice recomputed on the copy (whose sibling can never beat the optimum,
 * and must miss it now and then for the exact test to mean anything). */
static void check_insertion_search(bool exact)
{
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(
        sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true, .exact_insertion = exact}, &tree, &err),
        SR_OK);
    tree_copy *copy = malloc(sizeof *copy);
    node_census *census = malloc(sizeof *census);
    cr_assert(copy && census);
    rng r = {777};
    int improved_by_rotations = 0, greedy_missed_optimum = 0;
    double excess_sum = 0.0;
    for (int i = 0; i < 600; i++) {
        sr_vec3 centre = rng_vec3(&r, -20.0f, 20.0f), half = rng_vec3(&r, 0.1f, i % 17 == 0 ? 6.0f : 1.5f);
        sr_aabb leaf = {sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
        copy->count = 0;
        sr_dynamic_tree_visit_nodes(tree, copy_node, copy, &err);
        double before = 0.0, optimum = INFINITY;
        for (int s = 0; s < copy->count; s++) {
            before += box_half_area(copy->box[s]);
            optimum = fmin(optimum, sibling_cost(copy, s, leaf));
        }
        double greedy = copy->count > 0 ? greedy_cost(copy, leaf) : INFINITY;
        sr_dynamic_proxy p;
        cr_assert_eq(sr_dynamic_tree_insert(tree, leaf, (uint64_t)i, &p, &err), SR_OK);
        if (copy->count == 0)
            continue;
        cr_assert(greedy >= optimum * (1.0 - 1e-9), "insert %d: greedy %.9g below the optimum %.9g", i, greedy,
                  optimum);
        greedy_missed_optimum += greedy > optimum * (1.0 + 1e-6);
        excess_sum += (greedy - optimum) / before; /* the extra area, against the tree's total */
        census_sah(tree, census);
        double bound = before + box_half_area(leaf) + (exact ? optimum : greedy);
        cr_assert(census->area_sum <= bound * (1.0 + 1e-5), "insert %d: area sum %.6f above the %s search's %.6f", i,
                  census->area_sum, exact ? "exact" : "greedy", bound);
        if (census->area_sum < bound * (1.0 - 1e-4))
            improved_by_rotations++;
    }
    /* Without rotations the sum would equal the bound every time. */
    cr_log_info("%s insertion: rotations lowered the area sum below the search's bound in %d of 600 inserts; the "
                "greedy descent missed the optimum in %d, adding %.4f%% of the summed areas on average",
                exact ? "exact" : "greedy", improved_by_rotations, greedy_missed_optimum, 100.0 * excess_sum / 599);
    cr_assert(improved_by_rotations >= 30, "rotations helped in only %d inserts", improved_by_rotations);
    cr_assert(greedy_missed_optimum > 0, "the greedy descent always found the optimum: the exact test proves nothing");
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    free(copy);
    free(census);
    sr_dynamic_tree_destroy(tree);
}

Test(bvh_dynamic, exact_insertion_finds_the_sah_optimal_sibling)
{
    check_insertion_search(true);
}

Test(bvh_dynamic, greedy_insertion_finds_the_descents_sibling)
{
    check_insertion_search(false);
}

/* ---- frustum: subtrees inside are accepted wholesale ---- */

static bool stop_after_ten(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy, (void)user_data, (void)containment;
    return ++*(int *)user < 10;
}

Test(bvh_dynamic, frustum_around_everything_accepts_all_wholesale)
{
    /* The root is inside: every proxy is reported once, as SR_INSIDE, every node is walked once
     * and no box below the root is tested. Large enough that the walk overflows its prefetch ring. */
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(NULL, &tree, &err), SR_OK);
    world *w = calloc(1, sizeof *w);
    collector *c = calloc(1, sizeof *c);
    cr_assert(w && c);
    w->margin = 0.1f;
    rng r = {99};
    for (int i = 0; i < 5000; i++)
        insert_object(w, tree, &r);
    sr_frustum everything = {{{{1, 0, 0}, 1000},
                              {{-1, 0, 0}, 1000},
                              {{0, 1, 0}, 1000},
                              {{0, -1, 0}, 1000},
                              {{0, 0, 1}, 1000},
                              {{0, 0, -1}, 1000}}};
    collector_reset(c, tree, w);
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_query_frustum(tree, &everything, collect_frustum, c, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
    check_no_extras(c);
    cr_assert_eq(c->count, 5000);
    cr_assert_eq(s.nodes_visited, 2 * 5000 - 1);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (w->objects[i].live)
            cr_assert(c->mark[i] && c->containment[i] == SR_INSIDE, "object %d", i);

    /* A half-space frustum (x >= 0): the same set as brute force, INSIDE exactly for boxes wholly
     * on the positive side. */
    sr_frustum half_space = everything;
    half_space.planes[0] = (sr_plane){{1, 0, 0}, 0};
    collector_reset(c, tree, w);
    s = sr_dynamic_tree_query_frustum(tree, &half_space, collect_frustum, c, &err);
    cr_assert_eq(s.status, SR_OK, "%s", err.message);
    check_no_extras(c);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        const object *o = &w->objects[i];
        bool expected = o->live && o->fat.max.x >= 0.0f;
        cr_assert_eq(c->mark[i] != 0, expected, "object %d", i);
        if (expected)
            cr_assert_eq(c->containment[i], o->fat.min.x >= 0.0f ? SR_INSIDE : SR_INTERSECTING, "object %d", i);
    }
    /* Stopping early works in the wholesale walk too. */
    int calls = 0;
    s = sr_dynamic_tree_query_frustum(tree, &everything, stop_after_ten, &calls, &err);
    cr_assert_eq(calls, 10);
    cr_assert(s.stopped);
    free(w);
    free(c);
    sr_dynamic_tree_destroy(tree);
}

typedef struct line_walk {
    sr_aabb leaves[600];
    int leaf_count;
    long long contained_sum; /* over interior nodes: leaves whose boxes lie in the node's box */
    long long depth_sum;     /* over leaves: their depth (= the number of their ancestors) */
} line_walk;

static bool gather_leaves(void *user, const sr_dynamic_tree_node_info *node)
{
    line_walk *walk = user;
    if (node->is_leaf && walk->leaf_count < 600)
        walk->leaves[walk->leaf_count++] = node->box;
    return true;
}

static bool sum_containment(void *user, const sr_dynamic_tree_node_info *node)
{
    line_walk *walk = user;
    if (node->is_leaf) {
        walk->depth_sum += node->depth;
        return true;
    }
    for (int i = 0; i < walk->leaf_count; i++) {
        const sr_aabb *b = &walk->leaves[i];
        walk->contained_sum += node->box.min.x <= b->min.x && b->max.x <= node->box.max.x;
    }
    return true;
}

Test(bvh_dynamic, rebuild_partitions_separated_boxes_cleanly)
{
    /* Unit boxes on the x axis, 2 units apart, inserted in a shuffled order: every split of a correct
     * binned build separates the children along x, so an interior node's box holds exactly the
     * leaves of its subtree. Summed over interior nodes that is the summed depth of the leaves
     * (brute force on both sides); a partition that interleaved the halves would make it larger. */
    sr_dynamic_tree *tree;
    sr_error err;
    cr_assert_eq(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.no_margin = true}, &tree, &err), SR_OK);
    rng r = {4242};
    int slots[600];
    for (int i = 0; i < 600; i++)
        slots[i] = i;
    for (int i = 599; i > 0; i--) {
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1));
        int swap = slots[i];
        slots[i] = slots[j];
        slots[j] = swap;
    }
    for (int i = 0; i < 600; i++) {
        float x = 2.0f * (float)slots[i];
        sr_dynamic_proxy p;
        cr_assert_eq(sr_dynamic_tree_insert(tree, (sr_aabb){{x, 0, 0}, {x + 1, 1, 1}}, (uint64_t)i, &p, &err), SR_OK);
    }
    cr_assert_eq(sr_dynamic_tree_rebuild(tree, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_dynamic_tree_validate(tree, &err), SR_OK, "%s", err.message);
    line_walk *walk = calloc(1, sizeof *walk);
    cr_assert(walk);
    cr_assert_eq(sr_dynamic_tree_visit_nodes(tree, gather_leaves, walk, &err).status, SR_OK);
    cr_assert_eq(walk->leaf_count, 600);
    cr_assert_eq(sr_dynamic_tree_visit_nodes(tree, sum_containment, walk, &err).status, SR_OK);
    cr_assert_eq(walk->contained_sum, walk->depth_sum, "interior boxes hold %lld leaves, leaf depths sum to %lld",
                 walk->contained_sum, walk->depth_sum);
    /* Balanced by the SAH on equal boxes: height within one of log2(600) rounded up. */
    cr_assert_leq(sr_dynamic_tree_get_stats(tree).height, 11);
    free(walk);
    sr_dynamic_tree_destroy(tree);
}
