/* tests/bench/bench_dynamic_box2d.cpp — the side-by-side baseline of bench_dynamic.c on Box2D's
 * b2DynamicTree (Debian's libbox2d-dev, Box2D 2.4.1): the same workload (dynamic_workload.h) with
 * every box projected onto the x-z ground plane, since Box2D's tree is two-dimensional.
 *
 * What is the same work, and what is not:
 *   insert   b2DynamicTree::CreateProxy of the x-z projection of the tight box; Box2D adds its
 *            b2_aabbExtension (0.1, = WORKLOAD_MARGIN) itself. Same count, same order, same
 *            margin — but 2D boxes: four floats per node instead of six and perimeters instead
 *            of surface areas in the insertion cost, so each node is cheaper to look at. This,
 *            with move and remove, is the fair per-object comparison.
 *   move     MoveProxy(id, projected tight box, zero displacement): Box2D v2.4's rule, the one
 *            softrast implements (keep the fat box when it contains the new box and is not far
 *            too large, else remove and reinsert). The vertical component of each move is lost
 *            in the projection; every move of this workload whose y offset leaves the fat box
 *            also leaves it in x (the reinsert pass moves 0.5-2 units in x), so the same objects
 *            reinsert (move_mixed_reinserted says so).
 *   remove   DestroyProxy, in the same random order.
 *   frustum  NOT the same work. A 2D tree cannot test its nodes against the six 3D planes:
 *            Query can only walk the nodes whose 2D boxes overlap the frustum's x-z footprint
 *            (the bounding box of its eight corners projected) — a box far larger than the
 *            frustum's wedge — and call back for every leaf there. The callback then does the
 *            full 3D test of the object's fat box (x-z from the tree, y from the object) against
 *            the six planes, so the count is the same as softrast's and Bullet's; but nothing is
 *            pruned by the side planes above the leaves, and no subtree is accepted wholesale
 *            as inside. It is what a Box2D user would have to do, and it is reported as such.
 *   rebuild  Box2D 2.4 has only RebuildBottomUp ("very expensive, for testing": all pairs per
 *            merge, hours at 100k): not timed, reported as null, like the 3D SAH cost (a 2D tree
 *            has none; area_ratio_2d is Box2D's own GetAreaRatio, perimeters, for reference).
 *            So the 100 inserts into a 10k tree go into the tree built by insertion, where
 *            softrast's and Bullet's go into their rebuilt trees.
 *
 * The tree's code is Debian's compiled library (built with its assertions enabled: b2Assert is
 * assert); Query is a template compiled here with this build's flags. Built only where Box2D
 * 2.4 is installed; never run by `meson test`. Prints one JSON line. */
#include <box2d/b2_dynamic_tree.h>

#include <vector>

#include "dynamic_workload.h"

namespace
{

b2AABB projected(const workload_box &b)
{
    b2AABB a;
    a.lowerBound.Set(b.min.x, b.min.z);
    a.upperBound.Set(b.max.x, b.max.z);
    return a;
}

/* Query's callback: the full 3D frustum test of each leaf the footprint query reaches. */
struct frustum_counter {
    const b2DynamicTree *tree;
    const workload *w;
    int count = 0;

    bool QueryCallback(int32 proxy)
    {
        int index = (int)(uintptr_t)tree->GetUserData(proxy);
        const b2AABB &fat = tree->GetFatAABB(proxy);
        const workload_box &tight = w->boxes[index];
        workload_box box;
        box.min = workload_vec3_make(fat.lowerBound.x, tight.min.y - WORKLOAD_MARGIN, fat.lowerBound.y);
        box.max = workload_vec3_make(fat.upperBound.x, tight.max.y + WORKLOAD_MARGIN, fat.upperBound.y);
        count += workload_box_in_frustum(w->planes, &box);
        return true;
    }
};

} // namespace

int main()
{
    workload w;
    if (!workload_init(&w)) {
        fprintf(stderr, "bench_dynamic_box2d: out of memory\n");
        return 1;
    }
    std::vector<int32> proxies(WORKLOAD_OBJECTS);
    float footprint_min[2], footprint_max[2];
    workload_frustum_footprint(w.far_z, footprint_min, footprint_max);
    b2AABB footprint;
    footprint.lowerBound.Set(footprint_min[0], footprint_min[1]);
    footprint.upperBound.Set(footprint_max[0], footprint_max[1]);
    const b2Vec2 no_displacement(0.0f, 0.0f);

    workload_samples samples;
    workload_samples_init(&samples);
    workload_tree_figures figures = {};
    figures.sah_incremental = figures.sah_rebuilt = NAN;
    double area_ratio = 0.0;

    for (int run = -1; run < WORKLOAD_RUNS; run++) { /* run -1 is the warm-up */
        workload_make_offsets(&w);
        b2DynamicTree *tree = new b2DynamicTree();

        double t0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            proxies[i] = tree->CreateProxy(projected(w.boxes[i]), (void *)(uintptr_t)i);
        double t1 = workload_seconds();
        figures.height_incremental = tree->GetHeight();
        area_ratio = tree->GetAreaRatio();

        double query_seconds[WORKLOAD_QUERIES];
        for (int q = 0; q < WORKLOAD_QUERIES; q++) {
            frustum_counter counter;
            counter.tree = tree;
            counter.w = &w;
            double q0 = workload_seconds();
            tree->Query(&counter, footprint);
            query_seconds[q] = workload_seconds() - q0;
            figures.frustum_visible = counter.count;
        }

        double m0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            tree->MoveProxy(proxies[i], projected(workload_box_shifted(w.boxes[i], w.offset_inside[i])),
                            no_displacement);
        double m1 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            tree->MoveProxy(proxies[i], projected(workload_box_shifted(w.boxes[i], w.offset_reinsert[i])),
                            no_displacement);
        double m2 = workload_seconds();
        int reinserted = 0;
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            reinserted += tree->MoveProxy(proxies[i], projected(workload_box_shifted(w.boxes[i], w.offset_mixed[i])),
                                          no_displacement);
        double m3 = workload_seconds();
        figures.mixed_reinserted = (double)reinserted / WORKLOAD_OBJECTS;

        double r0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            tree->DestroyProxy(proxies[w.removal_order[i]]);
        double r1 = workload_seconds();
        delete tree;

        tree = new b2DynamicTree();
        double s0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_SMALL_OBJECTS; i++)
            proxies[i] = tree->CreateProxy(projected(w.boxes[i]), (void *)(uintptr_t)i);
        double s1 = workload_seconds();
        for (int i = WORKLOAD_SMALL_OBJECTS; i < WORKLOAD_SMALL_OBJECTS + WORKLOAD_BATCH; i++)
            proxies[i] = tree->CreateProxy(projected(w.boxes[i]), (void *)(uintptr_t)i);
        double s2 = workload_seconds();
        delete tree;

        if (run < 0)
            continue;
        workload_record_passes(&samples, run, t0, t1, m0, m1, m2, m3, r0, r1,
                               workload_median(query_seconds, WORKLOAD_QUERIES));
        samples.build_10k_by_insert_ms[run] = (s1 - s0) * 1e3;
        /* No rebuild between the 10k build and the batch (Box2D has no usable one). */
        samples.insert_batch_10k_ms[run] = (s2 - s1) * 1e3;
    }
    char extra[64];
    snprintf(extra, sizeof extra, ",\"area_ratio_2d\":%.2f", area_ratio);
    workload_print("dynamic_tree_box2d_b2dynamictree", &w, &samples, &figures, extra);
    workload_destroy(&w);
    return 0;
}
