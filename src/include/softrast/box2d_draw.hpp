/* softrast/box2d_draw.hpp — Box2D 2.4's b2Draw drawing into a softrast debug list, the 2D world
 * in the plane z = 0 (or another z) of softrast's 3D space, seen by any softrast camera.
 *
 * Header-only C++ (C++17 or later, as softrast's headers), for programs that already link
 * Box2D 2.4 (Debian's libbox2d-dev): include it, or copy this one file into the program. It
 * needs <box2d/box2d.h> and softrast/debug.h.
 *
 *     #include <softrast/box2d_draw.hpp>
 *
 *     sr_debug_list *list;  sr_debug_list_create(NULL, &list, NULL);
 *     sr_box2d_debug_draw drawer(list);      // shapes and joints by default (SetFlags to change)
 *     world.SetDebugDraw(&drawer);
 *     ...each frame:
 *     sr_debug_list_clear(list, NULL);
 *     world.Step(1.0f / 60.0f, 8, 3);
 *     world.DebugDraw();                     // the fixtures, joints, boxes, centres of mass
 *     drawer.draw_contacts(world);           // the touching contacts' points and normals
 *     sr_debug_draw(list, renderer, fb, view_projection, &err);   // or sr_viewer_frame(viewer, list, &err)
 *
 * As Box2D's testbed draws them: solid polygons and circles filled at half the colour and half
 * alpha under their outline, a solid circle's axis line from the centre to its rim, transforms as
 * a red x and a green y axis 0.4 long, points as round dots of their size in pixels. Box2D's
 * colours keep their alpha. Not thread-safe (as the list it fills). The drawer keeps the list's
 * pointer: keep the list alive while Box2D may draw. */
#ifndef SOFTRAST_BOX2D_DRAW_HPP
#define SOFTRAST_BOX2D_DRAW_HPP

#include <box2d/box2d.h>
#include <softrast/debug.h>

#include <vector>

/// b2Draw on an sr_debug_list.
class sr_box2d_debug_draw : public b2Draw {
public:
    /// Draws into `list` (may be NULL: nothing is drawn until set_list) in the plane z = `z`,
    /// with the flags e_shapeBit | e_jointBit.
    explicit sr_box2d_debug_draw(sr_debug_list *list = nullptr, float z = 0.0f)
        : list_(list), z_(z), width_(1), on_top_(false), axis_scale_(0.4f), contact_size_px_(8.0f),
          contact_normal_length_(0.3f)
    {
        SetFlags(e_shapeBit | e_jointBit);
    }

    sr_debug_list *list() const { return list_; }
    void set_list(sr_debug_list *list) { list_ = list; }
    /// The plane the 2D world is drawn in.
    void set_z(float z) { z_ = z; }
    /// Line width in pixels (1 to 4) of every item; 1 by default.
    void set_line_width(int width) { width_ = width; }
    /// Draw over everything (true) or depth-tested against a scene (false, the default).
    void set_on_top(bool on_top) { on_top_ = on_top; }
    /// DrawTransform's axis length (0.4, the testbed's).
    void set_axis_scale(float length) { axis_scale_ = length; }
    /// draw_contacts' dots (8 px) and normal lines (0.3 world units).
    void set_contacts(float size_px, float normal_length)
    {
        contact_size_px_ = size_px;
        contact_normal_length_ = normal_length;
    }

    sr_vec3 to_vec3(const b2Vec2 &v) const { return sr_vec3_make(v.x, v.y, z_); }
    static uint32_t to_color(const b2Color &c) { return sr_rgba8(c.r, c.g, c.b, c.a); }
    /// The testbed's fill: half the colour at half its alpha.
    static uint32_t to_fill(const b2Color &c) { return sr_rgba8(0.5f * c.r, 0.5f * c.g, 0.5f * c.b, 0.5f * c.a); }

    /* ---- b2Draw ---- */

    void DrawPolygon(const b2Vec2 *vertices, int32 count, const b2Color &color) override
    {
        if (to_points(vertices, count))
            sr_debug_polyline(list_, points_.data(), points_.size(), true, style(to_color(color)));
    }
    void DrawSolidPolygon(const b2Vec2 *vertices, int32 count, const b2Color &color) override
    {
        if (to_points(vertices, count))
            sr_debug_polygon_filled(list_, points_.data(), points_.size(), to_fill(color), style(to_color(color)));
    }
    void DrawCircle(const b2Vec2 &center, float radius, const b2Color &color) override
    {
        sr_debug_circle(list_, to_vec3(center), sr_vec3_make(0, 0, 1), radius, style(to_color(color)));
    }
    void DrawSolidCircle(const b2Vec2 &center, float radius, const b2Vec2 &axis, const b2Color &color) override
    {
        sr_debug_circle_filled(list_, to_vec3(center), sr_vec3_make(0, 0, 1), radius, to_fill(color),
                               style(to_color(color)));
        b2Vec2 rim = center + radius * axis;
        sr_debug_line(list_, to_vec3(center), to_vec3(rim), style(to_color(color)));
    }
    void DrawSegment(const b2Vec2 &p1, const b2Vec2 &p2, const b2Color &color) override
    {
        sr_debug_line(list_, to_vec3(p1), to_vec3(p2), style(to_color(color)));
    }
    void DrawTransform(const b2Transform &xf) override
    {
        b2Vec2 p = xf.p, x = p + axis_scale_ * xf.q.GetXAxis(), y = p + axis_scale_ * xf.q.GetYAxis();
        sr_debug_line(list_, to_vec3(p), to_vec3(x), style(sr_rgba8(1.0f, 0.0f, 0.0f, 1.0f)));
        sr_debug_line(list_, to_vec3(p), to_vec3(y), style(sr_rgba8(0.0f, 1.0f, 0.0f, 1.0f)));
    }
    void DrawPoint(const b2Vec2 &p, float size, const b2Color &color) override
    {
        sr_debug_dot(list_, to_vec3(p), size, style(to_color(color)));
    }

    /* ---- beyond b2Draw ---- */

    /// The world's touching contacts (b2World::DebugDraw draws none): each manifold point as a
    /// dot, and the normal from it as a line, in `color` (the testbed's contact yellow by
    /// default), on top.
    void draw_contacts(const b2World &world, const b2Color &color = b2Color(0.9f, 0.9f, 0.3f))
    {
        for (const b2Contact *contact = world.GetContactList(); contact; contact = contact->GetNext()) {
            if (!contact->IsTouching())
                continue;
            b2WorldManifold manifold;
            contact->GetWorldManifold(&manifold);
            int32 count = contact->GetManifold()->pointCount;
            sr_debug_style s = sr_debug_style_make(to_color(color), width_, true);
            for (int32 i = 0; i < count && i < b2_maxManifoldPoints; i++) {
                b2Vec2 tip = manifold.points[i] + contact_normal_length_ * manifold.normal;
                sr_debug_dot(list_, to_vec3(manifold.points[i]), contact_size_px_, s);
                sr_debug_line(list_, to_vec3(manifold.points[i]), to_vec3(tip), s);
            }
        }
    }

private:
    sr_debug_style style(uint32_t color) const { return sr_debug_style_make(color, width_, on_top_); }

    /// The vertices in the drawing plane, in points_ (kept between calls: no allocation once it
    /// has grown to the largest polygon).
    bool to_points(const b2Vec2 *vertices, int32 count)
    {
        if (!vertices || count < 2)
            return false;
        points_.resize((size_t)count);
        for (int32 i = 0; i < count; i++)
            points_[(size_t)i] = to_vec3(vertices[i]);
        return true;
    }

    sr_debug_list *list_;
    float z_;
    int width_;
    bool on_top_;
    float axis_scale_, contact_size_px_, contact_normal_length_;
    std::vector<sr_vec3> points_;
};

#endif
