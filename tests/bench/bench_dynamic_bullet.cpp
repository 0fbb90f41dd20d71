/* tests/bench/bench_dynamic_bullet.cpp — the side-by-side baseline of bench_dynamic.c on Bullet's
 * btDbvt (Debian's libbullet-dev, Bullet 3.24, single precision): the same workload
 * (dynamic_workload.h), timed the way a Bullet user would drive the tree.
 *
 *   insert   btDbvt::insert of the fat box (tight box + WORKLOAD_MARGIN on every side: btDbvt
 *            stores what it is given, so the margin softrast and Box2D add is added here)
 *   move     btDbvt::update(leaf, tight box, zero velocity, WORKLOAD_MARGIN): nothing when the
 *            stored box contains the tight box, else removal and reinsertion from the root
 *            (m_lkhd = -1, the default) of the tight box + margin — the rule btDbvtBroadphase
 *            uses. It lacks the "fat box far too large" shrink of softrast and Box2D, which this
 *            workload never triggers (zero displacement), so the same moves reinsert.
 *   remove   btDbvt::remove
 *   frustum  btDbvt::collideKDOP with the six planes (normals and offsets, inside when
 *            dot(n, p) + d >= 0, as softrast's): planes a subtree is wholly inside are dropped
 *            for it, and a subtree inside all six is enumerated without further tests
 *            (ICollide::AllLeaves -> enumLeaves), the same culling softrast's query does.
 *   rebuild  btDbvt::optimizeTopDown (default bottom-up threshold 128): a different build from
 *            softrast's binned SAH; its time and its SAH cost are reported for reference.
 *
 * The tree's code (insert, update, remove, optimizeTopDown) is Debian's compiled library; the
 * header-only templates (collideKDOP, enumLeaves) are compiled here with this build's flags.
 * sah_* use softrast's definition (bvh_dynamic.h: sum of node areas / root area), computed here.
 * Built only where Bullet is installed; never run by `meson test`. Prints one JSON line. */
#include <BulletCollision/BroadphaseCollision/btDbvt.h>

#include <vector>

#include "dynamic_workload.h"

namespace
{

btDbvtVolume to_volume(const workload_box &b)
{
    return btDbvtVolume::FromMM(btVector3(b.min.x, b.min.y, b.min.z), btVector3(b.max.x, b.max.y, b.max.z));
}

struct count_leaves : btDbvt::ICollide {
    int count = 0;
    void Process(const btDbvtNode *) override { count++; }
};

double half_area(const btDbvtVolume &v)
{
    btVector3 e = v.Lengths();
    return (double)e.x() * e.y() + (double)e.y() * e.z() + (double)e.z() * e.x();
}

/* softrast's SAH cost (sum over all nodes of area / root area) and the root's height. */
void tree_figures(const btDbvt &tree, double *sah, int *height)
{
    *sah = 0.0;
    *height = btDbvt::maxdepth(tree.m_root) - 1;
    if (!tree.m_root)
        return;
    double root_area = half_area(tree.m_root->volume);
    std::vector<const btDbvtNode *> stack{tree.m_root};
    while (!stack.empty()) {
        const btDbvtNode *n = stack.back();
        stack.pop_back();
        *sah += root_area > 0.0 ? half_area(n->volume) / root_area : 1.0;
        if (n->isinternal()) {
            stack.push_back(n->childs[0]);
            stack.push_back(n->childs[1]);
        }
    }
}

} // namespace

int main()
{
    workload w;
    if (!workload_init(&w)) {
        fprintf(stderr, "bench_dynamic_bullet: out of memory\n");
        return 1;
    }
    std::vector<btDbvtNode *> leaves(WORKLOAD_OBJECTS);
    btVector3 normals[6];
    btScalar offsets[6];
    for (int i = 0; i < 6; i++) {
        normals[i] = btVector3(w.planes[i].normal.x, w.planes[i].normal.y, w.planes[i].normal.z);
        offsets[i] = w.planes[i].d;
    }
    const btVector3 no_velocity(0, 0, 0);

    workload_samples samples;
    workload_samples_init(&samples);
    workload_tree_figures figures = {};

    for (int run = -1; run < WORKLOAD_RUNS; run++) { /* run -1 is the warm-up */
        workload_make_offsets(&w);
        btDbvt *tree = new btDbvt();

        double t0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            leaves[i] =
                tree->insert(to_volume(workload_box_expanded(w.boxes[i], WORKLOAD_MARGIN)), (void *)(uintptr_t)i);
        double t1 = workload_seconds();
        tree_figures(*tree, &figures.sah_incremental, &figures.height_incremental);

        double query_seconds[WORKLOAD_QUERIES];
        for (int q = 0; q < WORKLOAD_QUERIES; q++) {
            count_leaves counter;
            double q0 = workload_seconds();
            btDbvt::collideKDOP(tree->m_root, normals, offsets, 6, counter);
            query_seconds[q] = workload_seconds() - q0;
            figures.frustum_visible = counter.count;
        }

        double m0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
            btDbvtVolume box = to_volume(workload_box_shifted(w.boxes[i], w.offset_inside[i]));
            tree->update(leaves[i], box, no_velocity, WORKLOAD_MARGIN);
        }
        double m1 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
            btDbvtVolume box = to_volume(workload_box_shifted(w.boxes[i], w.offset_reinsert[i]));
            tree->update(leaves[i], box, no_velocity, WORKLOAD_MARGIN);
        }
        double m2 = workload_seconds();
        int reinserted = 0;
        for (int i = 0; i < WORKLOAD_OBJECTS; i++) {
            btDbvtVolume box = to_volume(workload_box_shifted(w.boxes[i], w.offset_mixed[i]));
            reinserted += tree->update(leaves[i], box, no_velocity, WORKLOAD_MARGIN);
        }
        double m3 = workload_seconds();
        figures.mixed_reinserted = (double)reinserted / WORKLOAD_OBJECTS;

        double b0 = workload_seconds();
        tree->optimizeTopDown();
        double b1 = workload_seconds();
        int unused_height;
        tree_figures(*tree, &figures.sah_rebuilt, &unused_height);

        double r0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_OBJECTS; i++)
            tree->remove(leaves[w.removal_order[i]]);
        double r1 = workload_seconds();
        delete tree;

        tree = new btDbvt();
        double s0 = workload_seconds();
        for (int i = 0; i < WORKLOAD_SMALL_OBJECTS; i++)
            leaves[i] =
                tree->insert(to_volume(workload_box_expanded(w.boxes[i], WORKLOAD_MARGIN)), (void *)(uintptr_t)i);
        double s1 = workload_seconds();
        tree->optimizeTopDown();
        double s2 = workload_seconds();
        for (int i = WORKLOAD_SMALL_OBJECTS; i < WORKLOAD_SMALL_OBJECTS + WORKLOAD_BATCH; i++)
            leaves[i] =
                tree->insert(to_volume(workload_box_expanded(w.boxes[i], WORKLOAD_MARGIN)), (void *)(uintptr_t)i);
        double s3 = workload_seconds();
        delete tree;

        if (run < 0)
            continue;
        workload_record_passes(&samples, run, t0, t1, m0, m1, m2, m3, r0, r1,
                               workload_median(query_seconds, WORKLOAD_QUERIES));
        samples.rebuild_100k_ms[run] = (b1 - b0) * 1e3;
        samples.build_10k_by_insert_ms[run] = (s1 - s0) * 1e3;
        samples.rebuild_10k_ms[run] = (s2 - s1) * 1e3;
        samples.insert_batch_10k_ms[run] = (s3 - s2) * 1e3;
    }
    workload_print("dynamic_tree_bullet_btdbvt", &w, &samples, &figures, "");
    workload_destroy(&w);
    return 0;
}
