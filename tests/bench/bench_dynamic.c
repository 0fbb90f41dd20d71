/* tests/bench/bench_dynamic.c — benchmark of the dynamic AABB tree (softrast/bvh_dynamic.h).
 * 100,000 game-sized boxes in a 2000 x 100 x 2000 world: per-object insert, move and remove
 * costs, frustum culling with a camera that sees ~16,000 of them, and a 10,000-object tree's
 * rebuild and batch insert. Medians over RUNS runs after one warm-up run; one JSON line on
 * stdout (a readable summary on stderr). Not a test: it checks nothing but the status codes. */
#include <softrast/bvh_dynamic.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OBJECTS 100000
#define SMALL_OBJECTS 10000
#define BATCH 100
#define RUNS 7
#define TARGET_VISIBLE 16000
#define WORLD_XZ 1000.0f
#define WORLD_Y 50.0f

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

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

static double median(double *values, int count)
{
    qsort(values, (size_t)count, sizeof *values, compare_double);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

static void check(sr_status status, const sr_error *err)
{
    if (status != SR_OK) {
        fprintf(stderr, "bench_dynamic: %s\n", err->message);
        exit(1);
    }
}

/* Sizes like a game's: mostly props of 0.5-4 units, one in 50 a building-sized 5-20. */
static sr_aabb random_box(rng *r)
{
    sr_vec3 centre = {rng_float(r, -WORLD_XZ, WORLD_XZ), rng_float(r, 0.0f, WORLD_Y),
                      rng_float(r, -WORLD_XZ, WORLD_XZ)};
    float size = rng_next(r) % 50 == 0 ? rng_float(r, 5.0f, 20.0f) : rng_float(r, 0.5f, 4.0f);
    sr_vec3 half = {size * rng_float(r, 0.25f, 0.5f), size * rng_float(r, 0.25f, 0.5f),
                    size * rng_float(r, 0.25f, 0.5f)};
    return (sr_aabb){sr_vec3_sub(centre, half), sr_vec3_add(centre, half)};
}

static sr_aabb shifted(sr_aabb box, sr_vec3 d)
{
    return (sr_aabb){sr_vec3_add(box.min, d), sr_vec3_add(box.max, d)};
}

static bool count_visible(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy, (void)user_data, (void)containment;
    (*(int *)user)++;
    return true;
}

static sr_frustum camera_frustum(float far_z)
{
    /* A player's camera near the ground in the middle of the world, looking along -z. */
    sr_mat4 view = sr_mat4_look_at((sr_vec3){0, 10, 0}, (sr_vec3){0, 8, -100}, (sr_vec3){0, 1, 0});
    sr_mat4 projection = sr_mat4_perspective(60.0f * SR_PI / 180.0f, 16.0f / 9.0f, 0.1f, far_z);
    return sr_frustum_from_matrix(sr_mat4_mul(projection, view));
}

static int visible_count(const sr_dynamic_tree *tree, float far_z, sr_error *err)
{
    sr_frustum f = camera_frustum(far_z);
    int visible = 0;
    sr_dynamic_tree_query_stats s = sr_dynamic_tree_query_frustum(tree, &f, count_visible, &visible, err);
    check(s.status, err);
    return visible;
}

int main(void)
{
    sr_error err;
    rng r = {2024};
    sr_aabb *boxes = malloc(sizeof(sr_aabb) * OBJECTS);
    sr_vec3 *steps = malloc(sizeof(sr_vec3) * OBJECTS);
    sr_dynamic_proxy *proxies = malloc(sizeof(sr_dynamic_proxy) * OBJECTS);
    int *order = malloc(sizeof(int) * OBJECTS);
    if (!boxes || !steps || !proxies || !order)
        return 1;
    for (int i = 0; i < OBJECTS; i++) {
        boxes[i] = random_box(&r);
        order[i] = i;
    }
    for (int i = OBJECTS - 1; i > 0; i--) { /* removal order: a random permutation */
        int j = (int)(rng_next(&r) % (uint64_t)(i + 1));
        int swap = order[i];
        order[i] = order[j];
        order[j] = swap;
    }

    double insert_us[RUNS], remove_us[RUNS], move_mixed_us[RUNS], move_inside_us[RUNS], move_reinsert_us[RUNS];
    double frustum_ms[RUNS], rebuild_100k_ms[RUNS];
    double rebuild_10k_ms[RUNS], build_10k_ms[RUNS], batch_10k_ms[RUNS];
    double sah_incremental = 0, sah_rebuilt = 0, mixed_reinsert_fraction = 0;
    int height_incremental = 0, visible = 0;
    float far_z = 0.0f;

    for (int run = -1; run < RUNS; run++) { /* run -1 is the warm-up */
        sr_dynamic_tree *tree;
        check(sr_dynamic_tree_create(NULL, &tree, &err), &err);

        /* Insert 100k into an empty tree (pool growth included, as a game would see it). */
        double t0 = now_seconds();
        for (int i = 0; i < OBJECTS; i++)
            check(sr_dynamic_tree_insert(tree, boxes[i], (uint64_t)i, &proxies[i], &err), &err);
        double t1 = now_seconds();
        sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
        sah_incremental = stats.sah_cost;
        height_incremental = stats.height;

        /* Frustum: pick the far plane once so that ~16k objects are visible. */
        if (far_z == 0.0f) {
            float lo = 10.0f, hi = 4000.0f;
            for (int k = 0; k < 40; k++) {
                float mid = 0.5f * (lo + hi);
                if (visible_count(tree, mid, &err) < TARGET_VISIBLE)
                    lo = mid;
                else
                    hi = mid;
            }
            far_z = hi;
        }
        sr_frustum frustum = camera_frustum(far_z);
        double query_times[9];
        for (int q = 0; q < 9; q++) {
            visible = 0;
            double q0 = now_seconds();
            sr_dynamic_tree_query_stats s =
                sr_dynamic_tree_query_frustum(tree, &frustum, count_visible, &visible, &err);
            query_times[q] = now_seconds() - q0;
            check(s.status, &err);
        }

        /* Moves. Inside: per-step jitter that stays within the 0.1 margin (no reinsertion).
         * Reinsert: every object moves 0.5-2 units (always leaves its fat box). Mixed: 90% jitter,
         * 10% leaving, the game-like mix. Offsets are from the inserted boxes,
         * so the tree keeps its layout from run to run. */
        for (int i = 0; i < OBJECTS; i++)
            steps[i] =
                (sr_vec3){rng_float(&r, -0.04f, 0.04f), rng_float(&r, -0.04f, 0.04f), rng_float(&r, -0.04f, 0.04f)};
        double m0 = now_seconds();
        for (int i = 0; i < OBJECTS; i++)
            check(sr_dynamic_tree_move(tree, proxies[i], shifted(boxes[i], steps[i]), (sr_vec3){0, 0, 0}, NULL, &err),
                  &err);
        double m1 = now_seconds();
        for (int i = 0; i < OBJECTS; i++) {
            float sign = rng_next(&r) & 1 ? 1.0f : -1.0f;
            steps[i] =
                (sr_vec3){sign * rng_float(&r, 0.5f, 2.0f), rng_float(&r, -0.2f, 0.2f), rng_float(&r, -2.0f, 2.0f)};
        }
        double m2 = now_seconds();
        for (int i = 0; i < OBJECTS; i++)
            check(sr_dynamic_tree_move(tree, proxies[i], shifted(boxes[i], steps[i]), (sr_vec3){0, 0, 0}, NULL, &err),
                  &err);
        double m3 = now_seconds();
        int reinserted = 0;
        for (int i = 0; i < OBJECTS; i++) /* relative to where the reinsert pass left each box */
            steps[i] =
                sr_vec3_add(steps[i], rng_next(&r) % 10 == 0
                                          ? (sr_vec3){rng_float(&r, -2.0f, 2.0f), 0.0f, rng_float(&r, -2.0f, 2.0f)}
                                          : (sr_vec3){rng_float(&r, -0.04f, 0.04f), 0.0f, 0.0f});
        double m4 = now_seconds();
        for (int i = 0; i < OBJECTS; i++) {
            bool changed;
            check(
                sr_dynamic_tree_move(tree, proxies[i], shifted(boxes[i], steps[i]), (sr_vec3){0, 0, 0}, &changed, &err),
                &err);
            reinserted += changed;
        }
        double m5 = now_seconds();
        mixed_reinsert_fraction = (double)reinserted / OBJECTS;

        /* Rebuild of the 100k tree (a level load or a periodic cleanup). */
        double b0 = now_seconds();
        check(sr_dynamic_tree_rebuild(tree, &err), &err);
        double b1 = now_seconds();
        sah_rebuilt = sr_dynamic_tree_get_stats(tree).sah_cost;

        /* Remove all, in random order. */
        double r0 = now_seconds();
        for (int i = 0; i < OBJECTS; i++)
            check(sr_dynamic_tree_remove(tree, proxies[order[i]], &err), &err);
        double r1 = now_seconds();
        sr_dynamic_tree_destroy(tree);

        /* 10k objects: build by insertion, rebuild, and a batch of 100 inserts into the tree. */
        check(sr_dynamic_tree_create(NULL, &tree, &err), &err);
        double s0 = now_seconds();
        for (int i = 0; i < SMALL_OBJECTS; i++)
            check(sr_dynamic_tree_insert(tree, boxes[i], (uint64_t)i, &proxies[i], &err), &err);
        double s1 = now_seconds();
        check(sr_dynamic_tree_rebuild(tree, &err), &err);
        double s2 = now_seconds();
        check(sr_dynamic_tree_reserve(tree, SMALL_OBJECTS + BATCH, &err), &err);
        double s3 = now_seconds();
        for (int i = SMALL_OBJECTS; i < SMALL_OBJECTS + BATCH; i++)
            check(sr_dynamic_tree_insert(tree, boxes[i], (uint64_t)i, &proxies[i], &err), &err);
        double s4 = now_seconds();
        sr_dynamic_tree_destroy(tree);

        if (run < 0)
            continue;
        insert_us[run] = (t1 - t0) * 1e6 / OBJECTS;
        frustum_ms[run] = median(query_times, 9) * 1e3;
        move_inside_us[run] = (m1 - m0) * 1e6 / OBJECTS;
        move_reinsert_us[run] = (m3 - m2) * 1e6 / OBJECTS;
        move_mixed_us[run] = (m5 - m4) * 1e6 / OBJECTS;
        rebuild_100k_ms[run] = (b1 - b0) * 1e3;
        remove_us[run] = (r1 - r0) * 1e6 / OBJECTS;
        build_10k_ms[run] = (s1 - s0) * 1e3;
        rebuild_10k_ms[run] = (s2 - s1) * 1e3;
        batch_10k_ms[run] = (s4 - s3) * 1e3;
    }

    double batch_ms = median(batch_10k_ms, RUNS);
    printf("{\"bench\":\"dynamic_tree\",\"objects\":%d,\"runs\":%d,"
           "\"insert_us\":%.3f,\"move_mixed_us\":%.3f,\"move_mixed_reinserted\":%.3f,\"move_inside_fat_us\":%.3f,"
           "\"move_reinsert_us\":%.3f,\"remove_us\":%.3f,\"frustum_ms\":%.3f,\"frustum_visible\":%d,"
           "\"frustum_far\":%.1f,\"rebuild_100k_ms\":%.2f,\"sah_incremental\":%.2f,\"sah_rebuilt\":%.2f,"
           "\"height_incremental\":%d,\"build_10k_by_insert_ms\":%.3f,\"rebuild_10k_ms\":%.3f,"
           "\"insert_batch_%d_into_10k_ms\":%.4f,\"insert_into_10k_us\":%.3f}\n",
           OBJECTS, RUNS, median(insert_us, RUNS), median(move_mixed_us, RUNS), mixed_reinsert_fraction,
           median(move_inside_us, RUNS), median(move_reinsert_us, RUNS), median(remove_us, RUNS),
           median(frustum_ms, RUNS), visible, (double)far_z, median(rebuild_100k_ms, RUNS), sah_incremental,
           sah_rebuilt, height_incremental, median(build_10k_ms, RUNS), median(rebuild_10k_ms, RUNS), BATCH, batch_ms,
           batch_ms * 1e3 / BATCH);
    free(boxes);
    free(steps);
    free(proxies);
    free(order);
    return 0;
}
