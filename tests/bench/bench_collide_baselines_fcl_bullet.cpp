/* tests/bench/bench_collide_baselines_fcl_bullet.cpp — FCL's and Bullet's convex queries for
 * bench_collide_baselines.c, behind the plain interface of collide_baselines.h. How the shapes are
 * given to them:
 *  - FCL 0.7: Sphere, Box, Capsule, Cylinder, Cone (lengths are full heights), and Convex for hulls,
 *    triangles, segments and points (the oracle's brute-force polytope of the points: vertices and
 *    faces; FCL's TriangleP has no distance or collision with most shapes); a rounded point is a
 *    Sphere. Default requests (GST_LIBCCD).
 *  - Bullet (btScalar float, as Debian builds it): btSphereShape, btBoxShape, btCapsuleShapeZ,
 *    btCylinderShapeZ, btConeShapeZ, and btConvexHullShape for hulls, segments, triangles and
 *    points; a rounding is Bullet's margin (boxes and cylinders given their outer size, so that
 *    their cores are softrast's), other margins 0. */
#include "collide_baselines.h"

#include <fcl/fcl.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>

#include <memory>
#include <vector>

namespace {

/* sr_shape_type values (softrast/collide.h). */
enum { POINT = 0, SEGMENT, TRIANGLE, SPHERE, BOX, CAPSULE, CYLINDER, CONE, HULL };

struct Side {
    EIGEN_MAKE_ALIGNED_OPERATOR_NEW
    std::shared_ptr<fcl::CollisionGeometryd> fcl; /* null: not representable */
    fcl::Transform3d fcl_pose;
    std::unique_ptr<btConvexShape> bullet;
    btTransform bullet_pose;
    double bullet_margin;
};

std::shared_ptr<fcl::CollisionGeometryd> fcl_convex(const baseline_shape &s)
{
    auto vertices = std::make_shared<std::vector<fcl::Vector3d>>();
    for (size_t i = 0; i < s.vertex_count; i++)
        vertices->emplace_back(s.vertices[3 * i], s.vertices[3 * i + 1], s.vertices[3 * i + 2]);
    size_t length = 0;
    for (size_t f = 0; f < s.face_count; f++)
        length += 1 + (size_t)s.faces[length];
    auto faces = std::make_shared<std::vector<int>>(s.faces, s.faces + length);
    return std::make_shared<fcl::Convexd>(vertices, (int)s.face_count, faces);
}

void make_fcl(const baseline_shape &s, Side &side)
{
    side.fcl_pose = fcl::Transform3d::Identity();
    side.fcl_pose.translation() = fcl::Vector3d(s.position[0], s.position[1], s.position[2]);
    double x = s.rotation[0], y = s.rotation[1], z = s.rotation[2], w = s.rotation[3];
    if (x == 0 && y == 0 && z == 0 && w == 0)
        w = 1;
    side.fcl_pose.linear() = fcl::Quaterniond(w, x, y, z).toRotationMatrix();
    if (s.type == SPHERE || (s.type == POINT && s.rounding > 0.0)) {
        side.fcl = std::make_shared<fcl::Sphered>(s.radius + s.rounding);
        return;
    }
    if (s.type == CAPSULE) {
        side.fcl = std::make_shared<fcl::Capsuled>(s.radius + s.rounding, 2 * s.half_height);
        return;
    }
    if (s.rounding > 0.0)
        return; /* no rounded boxes, hulls, triangles, segments, cylinders or cones in FCL */
    switch (s.type) {
    case BOX:
        side.fcl = std::make_shared<fcl::Boxd>(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
        break;
    case CYLINDER:
        side.fcl = std::make_shared<fcl::Cylinderd>(s.radius, 2 * s.half_height);
        break;
    case CONE:
        side.fcl = std::make_shared<fcl::Coned>(s.radius, 2 * s.half_height);
        break;
    default: /* point, segment, triangle (FCL's TriangleP has no distance or collision with most shapes), hull */
        side.fcl = fcl_convex(s);
        break;
    }
}

void make_bullet(const baseline_shape &s, Side &side)
{
    double x = s.rotation[0], y = s.rotation[1], z = s.rotation[2], w = s.rotation[3];
    if (x == 0 && y == 0 && z == 0 && w == 0)
        w = 1;
    side.bullet_pose = btTransform(btQuaternion((btScalar)x, (btScalar)y, (btScalar)z, (btScalar)w),
                                   btVector3((btScalar)s.position[0], (btScalar)s.position[1], (btScalar)s.position[2]));
    double r = s.rounding;
    btConvexShape *shape = nullptr;
    auto hull_of = [](const double *points, size_t count) {
        btConvexHullShape *hull = new btConvexHullShape();
        for (size_t i = 0; i < count; i++)
            hull->addPoint(btVector3((btScalar)points[3 * i], (btScalar)points[3 * i + 1], (btScalar)points[3 * i + 2]),
                           false);
        hull->recalcLocalAabb();
        return hull;
    };
    const double origin[3] = {0, 0, 0};
    switch (s.type) {
    case POINT:
        shape = hull_of(origin, 1);
        break;
    case SEGMENT:
    case TRIANGLE:
    case HULL:
        shape = hull_of(s.points, s.point_count);
        break;
    case SPHERE: /* the sphere's and the capsule's margins are their radii */
        r += s.radius;
        shape = new btSphereShape((btScalar)r);
        break;
    case CAPSULE:
        r += s.radius;
        shape = new btCapsuleShapeZ((btScalar)r, (btScalar)(2 * s.half_height));
        break;
    case BOX: /* the outer half extents: the core's plus the margin */
        shape = new btBoxShape(btVector3((btScalar)(s.half_extents[0] + r), (btScalar)(s.half_extents[1] + r),
                                         (btScalar)(s.half_extents[2] + r)));
        break;
    case CYLINDER:
        shape = new btCylinderShapeZ(
            btVector3((btScalar)(s.radius + r), (btScalar)(s.radius + r), (btScalar)(s.half_height + r)));
        break;
    default: /* cone */
        shape = new btConeShapeZ((btScalar)s.radius, (btScalar)(2 * s.half_height));
        break;
    }
    if (s.type != SPHERE && s.type != CAPSULE)
        shape->setMargin((btScalar)r);
    side.bullet_margin = r;
    side.bullet.reset(shape);
}

void set3(double out[3], const btVector3 &v)
{
    out[0] = v.x();
    out[1] = v.y();
    out[2] = v.z();
}

void set3(double out[3], const fcl::Vector3d &v)
{
    out[0] = v.x();
    out[1] = v.y();
    out[2] = v.z();
}

} // namespace

struct baseline_pair {
    EIGEN_MAKE_ALIGNED_OPERATOR_NEW
    Side a, b;
};

baseline_pair *baseline_pair_create(const baseline_shape *a, const baseline_shape *b)
{
    baseline_pair *pair = new baseline_pair();
    make_fcl(*a, pair->a);
    make_fcl(*b, pair->b);
    make_bullet(*a, pair->a);
    make_bullet(*b, pair->b);
    return pair;
}

void baseline_pair_destroy(baseline_pair *pair)
{
    delete pair;
}

bool baseline_representable(baseline_method method, const baseline_pair *pair)
{
    if (method == BASELINE_FCL_DISTANCE || method == BASELINE_FCL_SIGNED || method == BASELINE_FCL_COLLIDE)
        return pair->a.fcl && pair->b.fcl;
    return true;
}

baseline_answer baseline_run(baseline_method method, const baseline_pair *p)
{
    baseline_answer a{};
    a.answered = true;
    switch (method) {
    case BASELINE_FCL_DISTANCE:
    case BASELINE_FCL_SIGNED: {
        fcl::DistanceRequestd request(true, method == BASELINE_FCL_SIGNED);
        fcl::DistanceResultd result;
        double d = fcl::distance(p->a.fcl.get(), p->a.fcl_pose, p->b.fcl.get(), p->b.fcl_pose, request, result);
        a.has_distance = true;
        a.hit = d <= 0.0;
        if (method == BASELINE_FCL_DISTANCE && a.hit) {
            a.distance = 0.0; /* below zero FCL's plain distance is "implementation defined" */
            return a;
        }
        a.distance = d;
        if (d > 0.0) { /* the nearest points, world frame */
            a.has_points = true;
            set3(a.point_a, result.nearest_points[0]);
            set3(a.point_b, result.nearest_points[1]);
        }
        return a;
    }
    case BASELINE_FCL_COLLIDE: {
        fcl::CollisionRequestd request(1, true);
        fcl::CollisionResultd result;
        fcl::collide(p->a.fcl.get(), p->a.fcl_pose, p->b.fcl.get(), p->b.fcl_pose, request, result);
        a.hit = result.isCollision();
        if (a.hit && result.numContacts() > 0) {
            const fcl::Contactd &c = result.getContact(0);
            a.has_distance = a.has_normal = true;
            a.distance = -c.penetration_depth;
            set3(a.normal, c.normal); /* from o1 to o2 */
        }
        return a;
    }
    case BASELINE_BULLET_PENETRATION: {
        btGjkEpaSolver2::sResults results;
        a.hit = btGjkEpaSolver2::Penetration(p->a.bullet.get(), p->a.bullet_pose, p->b.bullet.get(), p->b.bullet_pose,
                                              btVector3(1, 0, 0), results);
        if (a.hit) {
            /* results.normal is in A's frame and points from B to A (witnesses in the world). */
            a.has_distance = a.has_normal = a.has_points = true;
            a.distance = results.distance;
            set3(a.normal, p->a.bullet_pose.getBasis() * -results.normal);
            set3(a.point_a, results.witnesses[0]);
            set3(a.point_b, results.witnesses[1]);
        }
        return a;
    }
    case BASELINE_BULLET_SIGNED: {
        btGjkEpaSolver2::sResults results;
        if (!btGjkEpaSolver2::SignedDistance(p->a.bullet.get(), p->a.bullet_pose, p->b.bullet.get(), p->b.bullet_pose,
                                             btVector3(1, 0, 0), results)) {
            a.answered = false;
            return a;
        }
        /* The cores' signed distance, the normal in A's frame from B to A: the shapes' distance is
         * less by the margins, their witnesses the cores' moved out by them. */
        btVector3 n = p->a.bullet_pose.getBasis() * -results.normal;
        a.has_distance = a.has_normal = a.has_points = true;
        a.distance = results.distance - (p->a.bullet_margin + p->b.bullet_margin);
        a.hit = a.distance <= 0.0;
        set3(a.normal, n);
        set3(a.point_a, results.witnesses[0] + n * (btScalar)p->a.bullet_margin);
        set3(a.point_b, results.witnesses[1] - n * (btScalar)p->b.bullet_margin);
        return a;
    }
    default:
        a.answered = false;
        return a;
    }
}
