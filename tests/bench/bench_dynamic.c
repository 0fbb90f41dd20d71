/* tests/bench/bench_dynamic.c — benchmark of the dynamic AABB tree (softrast/bvh_dynamic.h).
 * The workload of dynamic_workload.h (100,000 game-sized boxes; per-object insert, move and remove
 * costs, frustum culling with a camera that sees ~16,000 of them, a 10,000-object tree's rebuild
 * and batch insert), the same as bench_dynamic_bullet.cpp and bench_dynamic_box2d.cpp time on
 * Bullet's and Box2D's trees; then the 100k inserts once more with exact_insertion (insert_exact_us,
 * sah_incremental_exact: the price and the gain of the exact sibling search). Medians over WORKLOAD_RUNS runs after one
 * warm-up run; one JSON line on stdout (frustum_expected: the brute-force count to compare frustum_visible with). Not a
 * test. */
#include <softrast/bvh_dynamic.h>

#include "dynamic_workload.h"

static void check(sr_status status, const sr_error *err)
{
    if (status != SR_OK) {
        fprintf(stderr, "bench_dynamic: %s\n", err->message);
        exit(1);
    }
}

static sr_aabb to_aabb(workload_box b)
{
    return (sr_aabb){{b.min.x, b.min.y, b.min.z}, {b.max.x, b.max.y, b.max.z}};
}

static sr_aabb moved_box(const workload *w, int i, const workload_vec3 *offsets)
{
    return to_aabb(workload_box_shifted(w->boxes[i], offsets[i]));
}

static bool count_visible(void *user, sr_dynamic_proxy proxy, uint64_t user_data, sr_containment containment)
{
    (void)proxy, (void)user_data, (void)containment;
    (*(int *)user)++;
    return true;
}

int main(void)
{
    sr_error err;
    workload w;
    sr_dynamic_proxy *proxies = malloc(sizeof(sr_dynamic_proxy) * WORKLOAD_OBJECTS);
    if (!proxies || !workload_init(&w)) {
        fprintf(stderr, "bench_dynamic: out of memory\n");
        return 1;
    }
    sr_frustum frustum;
    for (int i = 0; i < 6; i++)
        frustum.planes[i] =
            (sr_plane){{w.planes[i].normal.x, w.planes[i].normal.y, w.planes[i].normal.z}, w.planes[i].d};
    const sr_vec3 no_displacement = {0.0f, 0.0f, 0.0f};

    workload_samples samples;
    workload_samples_init(&samples);
    double exact_insert_us[WORKLOAD_RUNS]; /* the same 100k inserts with exact_insertion */
    double exact_sah = 0.0;
    workload_tree_figures figures = {0};

    for (int run = -1; run < WORKLOAD_RUNS; run++) { /* run -1 is the warm-up */
        workload_make_offsets(&w);
        sr_dynamic_tree *tree;
        check(sr_dynamic_tree_create(NULL, &tree, &err), &err);

        /* Insert 100k into an empty tree (pool growth included, as a game would see it). */
        double t0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            check(sr_dynamic_tree_insert(tree, to_aabb(w.boxes[i]), (uint64_t)i, &proxies[i], &err), &err);
        double t1 = workload_seconds();
        sr_dynamic_tree_stats stats = sr_dynamic_tree_get_stats(tree);
        figures.sah_incremental = stats.sah_cost;
        figures.height_incremental = stats.height;

        double query_seconds[WORKLOAD_QUERIES];
        for (int q = 0; q < WORKLOAD_QUERIES; q++) {
            int visible = 0;
            double q0 = workload_seconds();
            sr_dynamic_tree_query_stats s =
                sr_dynamic_tree_query_frustum(tree, &frustum, count_visible, &visible, &err);
            query_seconds[q] = workload_seconds() - q0;
            check(s.status, &err);
            figures.frustum_visible = visible;
        }

        double m0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            check(
                sr_dynamic_tree_move(tree, proxies[i], moved_box(&w, i, w.offset_inside), no_displacement, NULL, &err),
                &err);
        double m1 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            check(sr_dynamic_tree_move(tree, proxies[i], moved_box(&w, i, w.offset_reinsert), no_displacement, NULL,
                                       &err),
                  &err);
        double m2 = workload_seconds();
        int reinserted = 0;
        for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
            bool changed;
            check(sr_dynamic_tree_move(tree, proxies[i], moved_box(&w, i, w.offset_mixed), no_displacement, &changed,
                                       &err),
                  &err);
            reinserted += changed;
        }
        double m3 = workload_seconds();
        figures.mixed_reinserted = (double)reinserted / WORKLOAD_OBJECTS;

        /* Rebuild of the 100k tree (a level load or a periodic cleanup). */
        double b0 = workload_seconds();
        check(sr_dynamic_tree_rebuild(tree, &err), &err);
        double b1 = workload_seconds();
        figures.sah_rebuilt = sr_dynamic_tree_get_stats(tree).sah_cost;

        double r0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            check(sr_dynamic_tree_remove(tree, proxies[w.removal_order[i]], &err), &err);
        double r1 = workload_seconds();
        sr_dynamic_tree_destroy(tree);

        /* 10k objects: build by insertion, rebuild, and a batch of 100 inserts into the tree. */
        check(sr_dynamic_tree_create(NULL, &tree, &err), &err);
        double s0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_SMALL_OBJECTS; i++)
            check(sr_dynamic_tree_insert(tree, to_aabb(w.boxes[i]), (uint64_t)i, &proxies[i], &err), &err);
        double s1 = workload_seconds();
        check(sr_dynamic_tree_rebuild(tree, &err), &err);
        double s2 = workload_seconds();
        check(sr_dynamic_tree_reserve(tree, WORKLOAD_SMALL_OBJECTS + WORKLOAD_BATCH, &err), &err);
        double s3 = workload_seconds();
        for (int i = WORKLOAD_SMALL_OBJECTS; i < WORKLOAD_SMALL_OBJECTS + WORKLOAD_BATCH; i++)
            check(sr_dynamic_tree_insert(tree, to_aabb(w.boxes[i]), (uint64_t)i, &proxies[i], &err), &err);
        double s4 = workload_seconds();
        sr_dynamic_tree_destroy(tree);

        /* The 100k inserts again with the exact (branch-and-bound) sibling search. */
        check(sr_dynamic_tree_create(&(sr_dynamic_tree_desc){.exact_insertion = true}, &tree, &err), &err);
        double e0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            check(sr_dynamic_tree_insert(tree, to_aabb(w.boxes[i]), (uint64_t)i, &proxies[i], &err), &err);
        double e1 = workload_seconds();
        exact_sah = sr_dynamic_tree_get_stats(tree).sah_cost;
        sr_dynamic_tree_destroy(tree);

        if (run < 0)
            continue;
        exact_insert_us[run] = (e1 - e0) * 1e6 / WORKLOAD_OBJECTS;
        workload_record_passes(&samples, run, t0, t1, m0, m1, m2, m3, r0, r1,
                               workload_median(query_seconds, WORKLOAD_QUERIES));
        samples.rebuild_100k_ms[run] = (b1 - b0) * 1e3;
        samples.build_10k_by_insert_ms[run] = (s1 - s0) * 1e3;
        samples.rebuild_10k_ms[run] = (s2 - s1) * 1e3;
        samples.insert_batch_10k_ms[run] = (s4 - s3) * 1e3;
    }
    char extra[128];
    snprintf(extra, sizeof extra, ",\"insert_exact_us\":%.3f,\"sah_incremental_exact\":%.2f",
             workload_median(exact_insert_us, WORKLOAD_RUNS), exact_sah);
    workload_print("dynamic_tree", &w, &samples, &figures, extra);
    workload_destroy(&w);
    free(proxies);
    return 0;
}
