/* pile_bullet.cpp — softrast as a Bullet program's debug renderer: 27 boxes and spheres fall on
 * a ground box; Bullet draws them and their contact points through its btIDebugDraw, here
 * softrast's sr_bullet_debug_draw (softrast/bullet_draw.hpp), into a debug list that softrast
 * draws in its embedded viewer or, with --headless, into PNG frames (engine_example.hpp has the
 * command line). Each body gets its own debug colour (btCollisionObject::setCustomDebugColor).
 * Built where libbullet-dev is installed (meson option -Dbullet, auto); its frames are checked
 * against Bullet's own transforms by tests/test_debug_engines.c:
 *   ./build/tests/examples/pile_bullet                                       # a window
 *   ./build/tests/examples/pile_bullet --headless --frames 120 --out frames  # frames/frame_0120.png */
#include <btBulletDynamicsCommon.h>
#include <softrast/bullet_draw.hpp>

#include "engine_example.hpp"

#include <memory>
#include <vector>

/* Opaque colours whose components are exact in 8 bits (k / 255), one per body in turn. */
static const float palette[8][3] = {
    {1.0f, 0.6f, 0.2f}, {0.2f, 0.8f, 1.0f}, {1.0f, 0.2f, 0.6f}, {0.6f, 1.0f, 0.2f},
    {1.0f, 1.0f, 0.4f}, {0.6f, 0.4f, 1.0f}, {0.2f, 1.0f, 0.6f}, {1.0f, 0.4f, 0.4f},
};

class pile_bullet : public engine_example {
public:
    pile_bullet() : drawer_(nullptr) {}
    ~pile_bullet() override { clear(); }

    const char *name() const override { return "pile_bullet"; }

    sr_camera camera() const override
    {
        sr_camera c = {};
        c.eye = sr_vec3_make(4.5f, 3.8f, 6.0f);
        c.target = sr_vec3_make(0.0f, 0.7f, 0.0f);
        c.up = sr_vec3_make(0.0f, 1.0f, 0.0f);
        c.fov_y_degrees = 45.0f;
        c.near_z = 0.1f;
        c.far_z = 100.0f;
        return c;
    }

    void reset() override
    {
        clear();
        configuration_.reset(new btDefaultCollisionConfiguration());
        dispatcher_.reset(new btCollisionDispatcher(configuration_.get()));
        broadphase_.reset(new btDbvtBroadphase());
        solver_.reset(new btSequentialImpulseConstraintSolver());
        world_.reset(new btDiscreteDynamicsWorld(dispatcher_.get(), broadphase_.get(), solver_.get(),
                                                 configuration_.get()));
        world_->setGravity(btVector3(0, -9.81f, 0));
        world_->setDebugDrawer(&drawer_);
        // Wireframe shapes and contact points: what a user turns on first.
        drawer_.setDebugMode(btIDebugDraw::DBG_DrawWireframe | btIDebugDraw::DBG_DrawContactPoints);
        add_body(new btBoxShape(btVector3(4.0f, 0.5f, 4.0f)), 0.0f, btVector3(0, -0.5f, 0), btQuaternion::getIdentity(),
                 btVector3(0.55f, 0.55f, 0.6f));
        // A 3 x 3 x 3 lattice, boxes and spheres alternating, each turned a little.
        int n = 0;
        for (int layer = 0; layer < 3; layer++)
            for (int row = 0; row < 3; row++)
                for (int column = 0; column < 3; column++, n++) {
                    btVector3 at(-1.3f + 1.3f * (float)column + 0.1f * (float)layer,
                                 1.2f + 1.4f * (float)layer + 0.15f * (float)row, -1.3f + 1.3f * (float)row);
                    btQuaternion turn(btVector3(0.3f + 0.1f * (float)n, 1.0f, 0.2f), 0.35f * (float)n);
                    const float *c = palette[n % 8];
                    btVector3 color(c[0], c[1], c[2]);
                    if (n % 3 == 2)
                        add_body(new btSphereShape(0.35f + 0.03f * (float)(n % 4)), 1.0f, at, turn, color);
                    else
                        add_body(new btBoxShape(btVector3(0.3f + 0.05f * (float)(n % 3), 0.25f + 0.05f * (float)(n % 4),
                                                          0.35f)),
                                 1.0f, at, turn, color);
                }
        steps_ = 0;
    }

    void step() override
    {
        world_->stepSimulation(1.0f / 60.0f, 1, 1.0f / 60.0f);
        steps_++;
    }

    void draw(sr_debug_list *list) override
    {
        sr_debug_list_clear(list, nullptr);
        drawer_.set_list(list);
        world_->debugDrawWorld();
    }

    void write_poses(FILE *out) const override
    {
        // Each body as Bullet's debug drawing places it: the collision object's world transform
        // and the shape's extents with their margin (btCollisionWorld::debugDrawObject's).
        for (size_t i = 0; i < bodies_.size(); i++) {
            const btRigidBody *body = bodies_[i];
            const btTransform &t = body->getWorldTransform();
            btQuaternion q = t.getRotation();
            btVector3 p = t.getOrigin(), color(1, 1, 1);
            body->getCustomDebugColor(color);
            unsigned rgba = engine_example_rgba8((float)color.x(), (float)color.y(), (float)color.z(), 1.0f);
            const btCollisionShape *shape = body->getCollisionShape();
            if (shape->getShapeType() == BOX_SHAPE_PROXYTYPE) {
                btVector3 h = static_cast<const btBoxShape *>(shape)->getHalfExtentsWithMargin();
                std::fprintf(out, "box %zu %08x %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", i, rgba,
                             (double)h.x(), (double)h.y(), (double)h.z(), (double)p.x(), (double)p.y(), (double)p.z(),
                             (double)q.x(), (double)q.y(), (double)q.z(), (double)q.w());
            } else {
                double r = (double)static_cast<const btSphereShape *>(shape)->getRadius();
                std::fprintf(out, "sphere %zu %08x %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", i, rgba, r,
                             (double)p.x(), (double)p.y(), (double)p.z(), (double)q.x(), (double)q.y(), (double)q.z(),
                             (double)q.w());
            }
        }
        for (int m = 0; m < dispatcher_->getNumManifolds(); m++) {
            const btPersistentManifold *manifold = dispatcher_->getManifoldByIndexInternal(m);
            for (int k = 0; k < manifold->getNumContacts(); k++) {
                const btVector3 &p = manifold->getContactPoint(k).m_positionWorldOnB;
                std::fprintf(out, "contact %.9g %.9g %.9g\n", (double)p.x(), (double)p.y(), (double)p.z());
            }
        }
    }

    std::string status() const override
    {
        return std::to_string(bodies_.size() - 1) + " bodies  " + std::to_string(contacts()) + " contacts  " +
               std::to_string(steps_ / 60.0).substr(0, 4) + " s";
    }

    int contacts() const override
    {
        int contacts = 0;
        for (int m = 0; m < dispatcher_->getNumManifolds(); m++)
            contacts += dispatcher_->getManifoldByIndexInternal(m)->getNumContacts();
        return contacts;
    }

    int bodies_awake() const override
    {
        int awake = 0;
        for (const btRigidBody *body : bodies_)
            awake += !body->isStaticObject() && body->isActive();
        return awake;
    }

private:
    void add_body(btCollisionShape *shape, float mass, const btVector3 &at, const btQuaternion &turn,
                  const btVector3 &color)
    {
        shapes_.emplace_back(shape);
        btVector3 inertia(0, 0, 0);
        if (mass > 0.0f)
            shape->calculateLocalInertia(mass, inertia);
        btTransform start(turn, at);
        motion_states_.emplace_back(new btDefaultMotionState(start));
        btRigidBody::btRigidBodyConstructionInfo info(mass, motion_states_.back().get(), shape, inertia);
        btRigidBody *body = new btRigidBody(info);
        body->setCustomDebugColor(color);
        world_->addRigidBody(body);
        bodies_.push_back(body);
    }

    void clear()
    {
        for (btRigidBody *body : bodies_) {
            world_->removeRigidBody(body);
            delete body;
        }
        bodies_.clear();
        motion_states_.clear();
        shapes_.clear();
        world_.reset();
        solver_.reset();
        broadphase_.reset();
        dispatcher_.reset();
        configuration_.reset();
    }

    sr_bullet_debug_draw drawer_;
    std::unique_ptr<btDefaultCollisionConfiguration> configuration_;
    std::unique_ptr<btCollisionDispatcher> dispatcher_;
    std::unique_ptr<btBroadphaseInterface> broadphase_;
    std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
    std::unique_ptr<btDiscreteDynamicsWorld> world_;
    std::vector<std::unique_ptr<btCollisionShape>> shapes_;
    std::vector<std::unique_ptr<btMotionState>> motion_states_;
    std::vector<btRigidBody *> bodies_;
    long steps_ = 0;
};

int main(int argc, char **argv)
{
    pile_bullet example;
    return engine_example_main(argc, argv, example);
}
