// bench_collide_sat_bullet.cpp — the baseline side of bench_collide_sat.c: Bullet's box-box test
// (btBoxBoxDetector, ODE's dBoxBox: 15 separating axes, then clipping for up to 4 contacts), as
// C functions so that bench_collide_sat.c stays C and alternates its rounds with ours. Built only
// where Bullet and a C++ compiler are installed (Debian's libbullet-dev, single precision); never
// run by `meson test`.
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btBoxShape.h>

#include <cstddef>
#include <ctime>
#include <vector>

extern "C" {
/// One box of a pair: half extents, position, rotation (x, y, z, w).
typedef struct bench_box {
    double half[3], position[3], rotation[4];
} bench_box;

/// Bullet's answer for a pair: whether it reports a contact, and its deepest (a positive depth).
typedef struct bench_bullet_answer {
    bool hit;
    double depth;
    int contacts;
} bench_bullet_answer;

/// Prepares Bullet's boxes and transforms for `count` pairs (kept until bench_collide_sat_bullet_end).
void bench_collide_sat_bullet_begin(const bench_box *a, const bench_box *b, size_t count);
/// One round of btBoxBoxDetector over every pair: ns per query; fills answers[].
double bench_collide_sat_bullet_round(bench_bullet_answer *answers);
void bench_collide_sat_bullet_end(void);
}

namespace
{

// Keeps the deepest contact: Bullet reports depth < 0 for penetration.
struct deepest : btDiscreteCollisionDetectorInterface::Result {
    btScalar depth = 0;
    int contacts = 0;
    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}
    void addContactPoint(const btVector3 &, const btVector3 &, btScalar d) override
    {
        if (contacts == 0 || d < depth)
            depth = d;
        contacts++;
    }
};

btTransform transform_of(const bench_box &box)
{
    btQuaternion q(btScalar(box.rotation[0]), btScalar(box.rotation[1]), btScalar(box.rotation[2]),
                   btScalar(box.rotation[3]));
    return btTransform(q, btVector3(btScalar(box.position[0]), btScalar(box.position[1]), btScalar(box.position[2])));
}

double now_ns()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

std::vector<btBoxShape> shapes_a, shapes_b;
std::vector<btDiscreteCollisionDetectorInterface::ClosestPointInput> inputs;

} // namespace

void bench_collide_sat_bullet_begin(const bench_box *a, const bench_box *b, size_t count)
{
    shapes_a.clear();
    shapes_b.clear();
    shapes_a.reserve(count);
    shapes_b.reserve(count);
    inputs.clear();
    inputs.reserve(count);
    for (size_t i = 0; i < count; i++) {
        shapes_a.emplace_back(btVector3(btScalar(a[i].half[0]), btScalar(a[i].half[1]), btScalar(a[i].half[2])));
        shapes_b.emplace_back(btVector3(btScalar(b[i].half[0]), btScalar(b[i].half[1]), btScalar(b[i].half[2])));
        btDiscreteCollisionDetectorInterface::ClosestPointInput input;
        input.m_transformA = transform_of(a[i]);
        input.m_transformB = transform_of(b[i]);
        inputs.push_back(input);
    }
}

double bench_collide_sat_bullet_round(bench_bullet_answer *answers)
{
    double start = now_ns();
    for (size_t i = 0; i < inputs.size(); i++) {
        btBoxBoxDetector detector(&shapes_a[i], &shapes_b[i]);
        deepest result;
        detector.getClosestPoints(inputs[i], result, nullptr);
        answers[i].hit = result.contacts > 0;
        answers[i].depth = -double(result.depth);
        answers[i].contacts = result.contacts;
    }
    return (now_ns() - start) / double(inputs.size());
}

void bench_collide_sat_bullet_end(void)
{
    shapes_a = std::vector<btBoxShape>();
    shapes_b = std::vector<btBoxShape>();
    inputs = std::vector<btDiscreteCollisionDetectorInterface::ClosestPointInput>();
}
