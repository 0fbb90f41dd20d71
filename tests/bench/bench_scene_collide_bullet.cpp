/* tests/bench/bench_scene_collide_bullet.cpp — the side-by-side baseline of bench_scene_collide.c
 * on Bullet's collision world (Debian's libbullet-dev, Bullet 3.24, single precision): the same
 * pile (pile_workload.h), the same moves, driven the way a Bullet user drives a btCollisionWorld
 * each frame: the moved objects' world transforms set, then the three stages of
 * performDiscreteCollisionDetection timed one by one: updateAabbs (every object's box, as
 * sr_scene_update), computeOverlappingPairs (btDbvtBroadphase: the broadphase) and
 * dispatchAllCollisionPairs (the narrowphase: a persistent manifold per overlapping pair).
 *
 * The shapes are the same solids: Bullet's margin is set to the shape's rounding (0 for most), so
 * a box or cylinder keeps its outer size and its core, a cone or hull grows by the rounding as
 * softrast's does, a sphere or capsule gets the rounding added to its radius. Bullet then runs
 * its closed forms (sphere-sphere, sphere-box, capsule-capsule), ODE's box-box, and GJK with EPA
 * (btGjkEpaPenetrationDepthSolver) for the rest, as the pass runs its closed forms, SAT and
 * GJK/EPA. --bullet-margins keeps Bullet's default margin (0.04) on boxes and cylinders instead:
 * the same outer size with edges rounded by 0.04, which is how Bullet is usually run (GJK on the
 * shrunken cores answers shallow overlaps without EPA).
 *
 * Pairs within --margin (default 0.1, the pass's default) are reported: the dispatcher's
 * breaking threshold is that distance, absolute (CD_USE_RELATIVE_CONTACT_BREAKING_THRESHOLD off),
 * and each frame's manifolds are counted as contacts (a point at distance < 0) or near pairs.
 * Medians of the stages' thread CPU times over the frames after a warm-up of 5. Built only where
 * Bullet is installed; never run by `meson test`. Prints one JSON line.
 *
 *   bench_scene_collide_bullet [--shapes N] [--frames F] [--margin THOUSANDTHS] [--moving PERCENT]
 *                              [--bullet-margins] */
#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

#include "pile_workload.h"

namespace
{

const int warmup = 5;

double cpu_ms()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

long parse_arg(const char *name, const char *value, long low, long high)
{
    char *end = nullptr;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end != '\0' || v < low || v > high) {
        fprintf(stderr, "bench_scene_collide_bullet: %s: expected a whole number from %ld to %ld\n", name, low, high);
        exit(2);
    }
    return v;
}

btTransform pose_of(const pile_body &b, const float translation[3], float angle)
{
    btVector3 axis(b.axis[0], b.axis[1], b.axis[2]);
    return btTransform(btQuaternion(axis.normalized(), angle), btVector3(translation[0], translation[1], translation[2]));
}

/* Bullet's shape for a body of the pile (see the header comment for the margins). */
btCollisionShape *make_shape(const pile &world, const pile_body &b, bool bullet_margins)
{
    const btScalar r = (btScalar)b.rounding;
    switch (b.kind) {
    case PILE_SPHERE:
        return new btSphereShape((btScalar)b.radius + r);
    case PILE_BOX: {
        btVector3 half((btScalar)b.half_extents[0], (btScalar)b.half_extents[1], (btScalar)b.half_extents[2]);
        auto *box = new btBoxShape(half + btVector3(r, r, r));
        if (!bullet_margins || r > 0)
            box->setMargin(r); // keeps the outer size: the core is `half`
        return box;
    }
    case PILE_CAPSULE:
        return new btCapsuleShapeZ((btScalar)b.radius + r, (btScalar)(2 * b.half_height));
    case PILE_CYLINDER: {
        btVector3 half((btScalar)b.radius, (btScalar)b.radius, (btScalar)b.half_height);
        auto *cylinder = new btCylinderShapeZ(half + btVector3(r, r, r));
        if (!bullet_margins || r > 0)
            cylinder->setMargin(r);
        return cylinder;
    }
    case PILE_CONE: {
        auto *cone = new btConeShapeZ((btScalar)b.radius, (btScalar)(2 * b.half_height));
        cone->setMargin(r); // added outside, as softrast's rounding
        return cone;
    }
    case PILE_HULL:
        break;
    }
    auto *hull = new btConvexHullShape();
    for (int i = 0; i < PILE_HULL_POINTS; i++) {
        const double *p = world.hull_points[b.hull][i];
        hull->addPoint(btVector3((btScalar)p[0], (btScalar)p[1], (btScalar)p[2]), i == PILE_HULL_POINTS - 1);
    }
    hull->setMargin(r);
    return hull;
}

} // namespace

int main(int argc, char **argv)
{
    long shapes = 10000, frames = 100, moving_percent = 100;
    double margin = 0.1;
    bool bullet_margins = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shapes") == 0)
            shapes = parse_arg("--shapes", i + 1 < argc ? argv[++i] : nullptr, 2, 1000000);
        else if (strcmp(argv[i], "--frames") == 0)
            frames = parse_arg("--frames", i + 1 < argc ? argv[++i] : nullptr, 1, 100000);
        else if (strcmp(argv[i], "--margin") == 0)
            margin = (double)parse_arg("--margin (in thousandths)", i + 1 < argc ? argv[++i] : nullptr, 0, 100000) * 1e-3;
        else if (strcmp(argv[i], "--moving") == 0)
            moving_percent = parse_arg("--moving", i + 1 < argc ? argv[++i] : nullptr, 0, 100);
        else if (strcmp(argv[i], "--bullet-margins") == 0)
            bullet_margins = true;
        else {
            fprintf(stderr, "usage: bench_scene_collide_bullet [--shapes N] [--frames F] [--margin THOUSANDTHS] "
                            "[--moving PERCENT] [--bullet-margins]\n");
            return 2;
        }
    }
    pile world;
    if (!pile_make(&world, shapes)) {
        fprintf(stderr, "bench_scene_collide_bullet: out of memory\n");
        return 1;
    }
    gContactBreakingThreshold = (btScalar)margin;
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher(&configuration);
    dispatcher.setDispatcherFlags(dispatcher.getDispatcherFlags() &
                                  ~btCollisionDispatcher::CD_USE_RELATIVE_CONTACT_BREAKING_THRESHOLD);
    btDbvtBroadphase broadphase;
    btCollisionWorld collision_world(&dispatcher, &broadphase, &configuration);
    std::vector<std::unique_ptr<btCollisionShape>> owned;
    std::vector<std::unique_ptr<btCollisionObject>> objects;
    for (long i = 0; i < shapes; i++) {
        const pile_body &b = world.bodies[i];
        owned.emplace_back(make_shape(world, b, bullet_margins));
        auto object = std::make_unique<btCollisionObject>();
        object->setCollisionShape(owned.back().get());
        float home[3] = {b.home[0], b.home[1], b.home[2]};
        object->setWorldTransform(pose_of(b, home, b.phase));
        collision_world.addCollisionObject(object.get());
        objects.push_back(std::move(object));
    }

    std::vector<double> aabbs, broad, narrow, total;
    double contacts_sum = 0, near_sum = 0, manifolds_sum = 0, pairs_sum = 0;
    for (long frame = -warmup; frame < frames; frame++) {
        if (frame > -warmup) {
            float time = (float)(frame + warmup);
            for (long i = 0; i < shapes; i++) {
                if (!pile_moves(i, moving_percent))
                    continue;
                float translation[3], angle;
                pile_pose(&world.bodies[i], time, translation, &angle);
                objects[(size_t)i]->setWorldTransform(pose_of(world.bodies[i], translation, angle));
            }
        }
        double t0 = cpu_ms();
        collision_world.updateAabbs();
        double t1 = cpu_ms();
        collision_world.computeOverlappingPairs();
        double t2 = cpu_ms();
        dispatcher.dispatchAllCollisionPairs(broadphase.getOverlappingPairCache(), collision_world.getDispatchInfo(),
                                             &dispatcher);
        double t3 = cpu_ms();
        if (frame < 0)
            continue;
        aabbs.push_back(t1 - t0);
        broad.push_back(t2 - t1);
        narrow.push_back(t3 - t2);
        total.push_back(t3 - t0);
        pairs_sum += broadphase.getOverlappingPairCache()->getNumOverlappingPairs();
        int manifolds = dispatcher.getNumManifolds();
        manifolds_sum += manifolds;
        for (int m = 0; m < manifolds; m++) {
            const btPersistentManifold *manifold = dispatcher.getManifoldByIndexInternal(m);
            int points = manifold->getNumContacts();
            if (points == 0)
                continue;
            btScalar closest = BT_LARGE_FLOAT;
            for (int k = 0; k < points; k++)
                closest = std::min(closest, manifold->getContactPoint(k).getDistance());
            contacts_sum += closest < 0;
            near_sum += closest >= 0;
        }
    }
    double f = (double)frames;
    printf("{\"benchmark\": \"scene_collide_bullet\", \"shapes\": %ld, \"frames\": %ld, \"moving_percent\": %ld, "
           "\"margin\": %g, \"bullet_margins\": %s, "
           "\"per_frame_median_cpu_ms\": {\"all\": %.3f, \"update_aabbs\": %.3f, \"broadphase\": %.3f, "
           "\"narrowphase\": %.3f}, "
           "\"per_frame_mean\": {\"pairs\": %.0f, \"manifolds\": %.0f, \"contacts\": %.0f, \"near\": %.0f}}\n",
           shapes, frames, moving_percent, margin, bullet_margins ? "true" : "false", median(total), median(aabbs),
           median(broad), median(narrow), pairs_sum / f, manifolds_sum / f, contacts_sum / f, near_sum / f);
    for (auto &object : objects)
        collision_world.removeCollisionObject(object.get());
    pile_free(&world);
    return 0;
}
