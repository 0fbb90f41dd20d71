/* pile_box2d.cpp — softrast as a Box2D 2.4 program's debug renderer: 30 boxes and circles fall
 * into a bin; Box2D draws them through its b2Draw, here softrast's sr_box2d_debug_draw
 * (softrast/box2d_draw.hpp), in the plane z = 0 of softrast's 3D space, with the touching
 * contacts' points and normals (draw_contacts), into a debug list that softrast draws in its
 * embedded viewer or, with --headless, into PNG frames (engine_example.hpp has the command line).
 * Built where libbox2d-dev is installed (meson option -Dbox2d, auto); its frames are checked
 * against Box2D's own transforms by tests/test_debug_engines.c:
 *   ./build/tests/examples/pile_box2d                                       # a window
 *   ./build/tests/examples/pile_box2d --headless --frames 120 --out frames  # frames/frame_0120.png */
#include <box2d/box2d.h>
#include <softrast/box2d_draw.hpp>

#include "engine_example.hpp"

#include <memory>
#include <vector>

class pile_box2d : public engine_example {
public:
    const char *name() const override { return "pile_box2d"; }
    /// The HUD alone: the viewer's ground grid (the XZ plane) would cut across Box2D's plane.
    uint32_t overlays() const override { return SR_OVERLAY_HUD; }

    sr_camera camera() const override
    {
        // Straight at the plane z = 0, a little from above.
        sr_camera c = {};
        c.eye = sr_vec3_make(0.0f, 7.0f, 21.0f);
        c.target = sr_vec3_make(0.0f, 4.5f, 0.0f);
        c.up = sr_vec3_make(0.0f, 1.0f, 0.0f);
        c.fov_y_degrees = 40.0f;
        c.near_z = 0.1f;
        c.far_z = 100.0f;
        return c;
    }

    void reset() override
    {
        world_.reset(new b2World(b2Vec2(0.0f, -10.0f)));
        world_->SetDebugDraw(&drawer_);
        bodies_.clear();
        // The bin: a floor and two walls, one static body.
        b2BodyDef ground_def;
        ground_ = world_->CreateBody(&ground_def);
        b2PolygonShape floor, left, right;
        floor.SetAsBox(8.0f, 0.5f, b2Vec2(0.0f, -0.5f), 0.0f);
        left.SetAsBox(0.3f, 3.0f, b2Vec2(-7.7f, 3.0f), 0.0f);
        right.SetAsBox(0.3f, 3.0f, b2Vec2(7.7f, 3.0f), 0.0f);
        ground_->CreateFixture(&floor, 0.0f);
        ground_->CreateFixture(&left, 0.0f);
        ground_->CreateFixture(&right, 0.0f);
        // 30 bodies in five rows, boxes and circles alternating, each turned a little.
        for (int n = 0; n < 30; n++) {
            b2BodyDef def;
            def.type = b2_dynamicBody;
            def.position.Set(-5.0f + 2.0f * (float)(n % 6) + 0.3f * (float)(n / 6 % 2), 1.5f + 1.6f * (float)(n / 6));
            def.angle = 0.4f * (float)n;
            b2Body *body = world_->CreateBody(&def);
            b2FixtureDef fixture;
            fixture.density = 1.0f;
            fixture.friction = 0.5f;
            b2PolygonShape box;
            b2CircleShape circle;
            if (n % 3 == 2) {
                circle.m_radius = 0.45f + 0.05f * (float)(n % 4);
                fixture.shape = &circle;
            } else {
                box.SetAsBox(0.4f + 0.1f * (float)(n % 3), 0.35f + 0.05f * (float)(n % 4));
                fixture.shape = &box;
            }
            body->CreateFixture(&fixture);
            bodies_.push_back(body);
        }
        steps_ = 0;
    }

    void step() override
    {
        world_->Step(1.0f / 60.0f, 8, 3);
        steps_++;
    }

    void draw(sr_debug_list *list) override
    {
        sr_debug_list_clear(list, nullptr);
        drawer_.set_list(list);
        world_->DebugDraw();
        drawer_.draw_contacts(*world_);
    }

    void write_poses(FILE *out) const override
    {
        // Each body as b2World::DebugDraw places it (its transform) with the outline colour
        // DebugDraw gives it: awake (0.9, 0.7, 0.7), asleep (0.6, 0.6, 0.6).
        for (size_t i = 0; i < bodies_.size(); i++) {
            const b2Body *body = bodies_[i];
            const b2Transform &t = body->GetTransform();
            unsigned rgba = body->IsAwake() ? engine_example_rgba8(0.9f, 0.7f, 0.7f, 1.0f)
                                            : engine_example_rgba8(0.6f, 0.6f, 0.6f, 1.0f);
            const b2Shape *shape = body->GetFixtureList()->GetShape();
            double angle = (double)t.q.GetAngle();
            if (shape->GetType() == b2Shape::e_polygon) {
                // SetAsBox's corners are (+-hx, +-hy): vertex 2 is (hx, hy).
                const b2Vec2 &corner = static_cast<const b2PolygonShape *>(shape)->m_vertices[2];
                std::fprintf(out, "rect %zu %08x %.9g %.9g %.9g %.9g %.9g\n", i, rgba, (double)corner.x,
                             (double)corner.y, (double)t.p.x, (double)t.p.y, angle);
            } else {
                std::fprintf(out, "circle %zu %08x %.9g %.9g %.9g %.9g\n", i, rgba, (double)shape->m_radius,
                             (double)t.p.x, (double)t.p.y, angle);
            }
        }
        // The bin's walls and floor, static (0.5, 0.9, 0.5): boxes at rest share its edges.
        unsigned ground_rgba = engine_example_rgba8(0.5f, 0.9f, 0.5f, 1.0f);
        size_t id = bodies_.size();
        for (const b2Fixture *f = ground_->GetFixtureList(); f; f = f->GetNext(), id++) {
            const b2PolygonShape *box = static_cast<const b2PolygonShape *>(f->GetShape());
            b2Vec2 centre = b2Mul(ground_->GetTransform(), box->m_centroid);
            std::fprintf(out, "rect %zu %08x %.9g %.9g %.9g %.9g %.9g\n", id, ground_rgba,
                         (double)(box->m_vertices[2].x - box->m_centroid.x),
                         (double)(box->m_vertices[2].y - box->m_centroid.y), (double)centre.x, (double)centre.y,
                         (double)ground_->GetAngle());
        }
        for (const b2Contact *contact = world_->GetContactList(); contact; contact = contact->GetNext()) {
            if (!contact->IsTouching())
                continue;
            b2WorldManifold manifold;
            contact->GetWorldManifold(&manifold);
            for (int32 k = 0; k < contact->GetManifold()->pointCount; k++)
                std::fprintf(out, "contact %.9g %.9g 0\n", (double)manifold.points[k].x, (double)manifold.points[k].y);
        }
    }

    std::string status() const override
    {
        return std::to_string(bodies_.size()) + " bodies  " + std::to_string(contacts()) + " contacts  " +
               std::to_string(steps_ / 60.0).substr(0, 4) + " s";
    }

    int contacts() const override
    {
        int contacts = 0;
        for (const b2Contact *contact = world_->GetContactList(); contact; contact = contact->GetNext())
            contacts += contact->IsTouching() ? contact->GetManifold()->pointCount : 0;
        return contacts;
    }

    int bodies_awake() const override
    {
        int awake = 0;
        for (const b2Body *body : bodies_)
            awake += body->IsAwake();
        return awake;
    }

private:
    sr_box2d_debug_draw drawer_;
    std::unique_ptr<b2World> world_;
    b2Body *ground_ = nullptr;     // owned by the world
    std::vector<b2Body *> bodies_; // owned by the world
    long steps_ = 0;
};

int main(int argc, char **argv)
{
    pile_box2d example;
    return engine_example_main(argc, argv, example);
}
