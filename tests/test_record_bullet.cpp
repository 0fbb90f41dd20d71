/* tests/test_record_bullet.cpp — a recorded Bullet run replays frame for frame identical to the
 * live frames: a pile of boxes, spheres and capsules falls in a btDiscreteDynamicsWorld, drawn
 * each step through softrast's adapter (softrast/bullet_draw.hpp) into a list that is both drawn
 * (the live frame) and recorded; the recording, played back, gives the same items and the same
 * pixels at every frame. Built where Bullet and a C++ compiler are (tests/examples/meson.build). */
#include <criterion/criterion.h>

#include <softrast/bullet_draw.hpp>
#include <softrast/record.h>

#include <btBulletDynamicsCommon.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace
{

struct pile {
    btDefaultCollisionConfiguration configuration;
    btCollisionDispatcher dispatcher{&configuration};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &configuration};
    std::vector<std::unique_ptr<btCollisionShape>> shapes;
    std::vector<std::unique_ptr<btDefaultMotionState>> states;
    std::vector<std::unique_ptr<btRigidBody>> bodies;

    void add(btCollisionShape *shape, float mass, const btVector3 &at, const btQuaternion &turn)
    {
        shapes.emplace_back(shape);
        btVector3 inertia(0, 0, 0);
        if (mass > 0.0f)
            shape->calculateLocalInertia(mass, inertia);
        states.emplace_back(new btDefaultMotionState(btTransform(turn, at)));
        bodies.emplace_back(
            new btRigidBody(btRigidBody::btRigidBodyConstructionInfo(mass, states.back().get(), shape, inertia)));
        world.addRigidBody(bodies.back().get());
    }

    pile()
    {
        world.setGravity(btVector3(0, -9.81f, 0));
        add(new btBoxShape(btVector3(4.0f, 0.5f, 4.0f)), 0.0f, btVector3(0, -0.5f, 0), btQuaternion::getIdentity());
        for (int n = 0; n < 18; n++) {
            btVector3 at(-1.2f + 0.8f * (float)(n % 4), 1.0f + 0.7f * (float)n, -0.6f + 0.4f * (float)(n % 3));
            btQuaternion turn(btVector3(0.3f, 1.0f, 0.2f).normalized(), 0.4f * (float)n);
            if (n % 3 == 0)
                add(new btSphereShape(0.35f), 1.0f, at, turn);
            else if (n % 3 == 1)
                add(new btBoxShape(btVector3(0.3f, 0.25f, 0.35f)), 1.0f, at, turn);
            else
                add(new btCapsuleShape(0.2f, 0.5f), 1.0f, at, turn);
        }
    }

    ~pile()
    {
        for (auto &body : bodies)
            world.removeRigidBody(body.get());
    }
};

} // namespace

Test(record_bullet, a_recorded_run_replays_frame_for_frame, .timeout = 120)
{
    char folder[] = "/tmp/softrast_record_bullet_XXXXXX";
    cr_assert_not_null(mkdtemp(folder));
    std::string path = std::string(folder) + "/pile.srrec";
    const int width = 320, height = 200, frames = 90;
    sr_camera camera = sr_camera_look_at(sr_vec3_make(3.0f, 4.0f, 8.0f), sr_vec3_make(0.0f, 1.0f, 0.0f));
    sr_mat4 view, projection;
    sr_camera_matrices(&camera, width, height, &view, &projection);
    sr_mat4 view_projection = sr_mat4_mul(projection, view);

    sr_debug_list *list = nullptr;
    sr_framebuffer *fb = nullptr;
    sr_renderer *renderer = nullptr;
    sr_framebuffer_desc fb_desc = SR_ZERO_INIT;
    fb_desc.width = width;
    fb_desc.height = height;
    sr_renderer_desc renderer_desc = SR_ZERO_INIT;
    renderer_desc.threads = 2;
    cr_assert_eq(sr_debug_list_create(nullptr, &list, nullptr), SR_OK);
    cr_assert_eq(sr_framebuffer_create(&fb_desc, &fb, nullptr), SR_OK);
    cr_assert_eq(sr_renderer_create(&renderer_desc, &renderer, nullptr), SR_OK);
    sr_recorder *rec = nullptr;
    sr_error err = SR_ZERO_INIT;
    cr_assert_eq(sr_recorder_create(path.c_str(), nullptr, &rec, &err), SR_OK, "%s", err.message);
    cr_assert_eq(sr_recorder_set_camera(rec, &camera, &err), SR_OK);

    pile p;
    sr_bullet_debug_draw drawer(list);
    p.world.setDebugDrawer(&drawer);
    std::vector<std::vector<uint32_t>> live;
    std::vector<std::vector<sr_debug_item>> items;
    for (int f = 0; f < frames; f++) {
        sr_debug_list_clear(list, nullptr);
        p.world.stepSimulation(1.0f / 60.0f);
        p.world.debugDrawWorld();
        cr_assert_eq(sr_debug_list_get_stats(list).items_dropped, 0);
        // The live frame, as the program shows it.
        sr_renderer_clear(renderer, fb, SR_BENCH_SCENE_BACKGROUND, 1.0f);
        cr_assert_eq(sr_debug_draw(list, renderer, fb, view_projection, &err), SR_OK, "%s", err.message);
        live.emplace_back(fb->color, fb->color + width * height);
        size_t count = 0;
        const sr_debug_item *kept = sr_debug_list_items(list, &count);
        items.emplace_back(kept, kept + count);
        cr_assert_eq(sr_recorder_frame(rec, f / 60.0, &list, 1, nullptr, &err), SR_OK, "%s", err.message);
    }
    cr_assert_eq(sr_recorder_close(rec, &err), SR_OK, "%s", err.message);

    sr_recording *recording = nullptr;
    cr_assert_eq(sr_recording_open(path.c_str(), nullptr, &recording, &err), SR_OK, "%s", err.message);
    size_t shapes = 0;
    for (int f = 0; f < frames; f++) {
        sr_recording_frame frame;
        cr_assert_eq(sr_recording_seek(recording, (uint64_t)f, &frame, &err), SR_OK, "%s", err.message);
        size_t count = 0;
        const sr_debug_item *replayed = sr_debug_list_items(frame.lists[0], &count);
        cr_assert_eq(count, items[f].size(), "frame %d: %zu items, %zu live", f, count, items[f].size());
        for (size_t i = 0; i < count; i++) {
            cr_assert_eq(std::memcmp(&replayed[i], &items[f][i], sizeof(sr_debug_item)), 0, "frame %d, item %zu", f, i);
            shapes += replayed[i].kind == SR_DEBUG_ITEM_BOX || replayed[i].kind == SR_DEBUG_ITEM_ORIENTED_SPHERE ||
                      replayed[i].kind == SR_DEBUG_ITEM_CAPSULE;
        }
        cr_assert_eq(sr_recording_render(recording, renderer, fb, nullptr, &err), SR_OK, "%s", err.message);
        size_t differ = 0;
        for (int i = 0; i < width * height; i++)
            differ += fb->color[i] != live[f][i];
        cr_assert_eq(differ, 0, "frame %d: %zu pixels differ from the live frame", f, differ);
    }
    cr_assert_gt(shapes, 0, "Bullet drew no shapes");
    sr_recording_destroy(recording);
    sr_renderer_destroy(renderer);
    sr_framebuffer_destroy(fb);
    sr_debug_list_destroy(list);
    unlink(path.c_str());
    rmdir(folder);
}
