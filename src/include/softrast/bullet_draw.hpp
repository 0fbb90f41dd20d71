/* softrast/bullet_draw.hpp — Bullet's btIDebugDraw drawing into a softrast debug list.
 *
 * Header-only C++ (C++17 or later, as softrast's headers), for programs that already link
 * Bullet: include it, or copy this one file into the program. It needs Bullet's LinearMath
 * headers (pkg-config bullet puts them on the include path) and softrast/debug.h.
 *
 *     #include <softrast/bullet_draw.hpp>
 *
 *     sr_debug_list *list;  sr_debug_list_create(NULL, &list, NULL);
 *     sr_bullet_debug_draw drawer(list);     // wireframe and contact points by default
 *     world->setDebugDrawer(&drawer);
 *     ...each frame:
 *     sr_debug_list_clear(list, NULL);      // or drawer.clearLines()
 *     world->stepSimulation(1.0f / 60.0f);
 *     world->debugDrawWorld();              // the bodies' shapes and contacts, into the list
 *     sr_debug_draw(list, renderer, fb, view_projection, &err);   // or sr_viewer_frame(viewer, list, &err)
 *
 * Bullet's shapes arrive as softrast's shape items, not as Bullet's tessellation into lines:
 * drawSphere with a transform is an oriented sphere (its spin shows), drawBox a box, drawCapsule,
 * drawCylinder and drawCone the softrast shapes, drawTransform softrast's axes, drawLine's
 * two-colour form a gradient line, drawTriangle a translucent filled triangle with its outline,
 * drawContactPoint a dot with an arrow along the normal, draw3dText a label; reportErrorWarning
 * goes to a callback (stderr by default). Shapes Bullet tessellates itself (convex hulls, triangle
 * meshes, drawArc, drawSpherePatch, drawPlane) come through drawLine and drawTriangle.
 *
 * Not thread-safe (as the list it fills). The drawer keeps the list's pointer: keep the list
 * alive while Bullet may draw. */
#ifndef SOFTRAST_BULLET_DRAW_HPP
#define SOFTRAST_BULLET_DRAW_HPP

#include <LinearMath/btIDebugDraw.h>
#include <LinearMath/btTransform.h>
#include <softrast/debug.h>

#include <cstdio>

/// btIDebugDraw on an sr_debug_list. Bullet's colours (btVector3 RGB in [0, 1]) become opaque
/// sr_rgba8 colours.
class sr_bullet_debug_draw : public btIDebugDraw {
public:
    /// Receives reportErrorWarning's text (Bullet's, ending with a newline or not).
    typedef void (*warning_fn)(void *user, const char *text);

    /// Draws into `list` (may be NULL: nothing is drawn until set_list), with Bullet's debug
    /// mode DBG_DrawWireframe | DBG_DrawContactPoints.
    explicit sr_bullet_debug_draw(sr_debug_list *list = nullptr)
        : list_(list), mode_(DBG_DrawWireframe | DBG_DrawContactPoints), width_(1), on_top_(false),
          contacts_on_top_(true), contact_size_px_(6.0f), contact_normal_length_(0.25f), triangle_fill_(0.3f),
          text_color_(SR_DEBUG_WHITE), warning_(print_warning), warning_user_(nullptr)
    {
    }

    sr_debug_list *list() const { return list_; }
    void set_list(sr_debug_list *list) { list_ = list; }

    /// Line width in pixels (1 to 4) of every item; 1 by default.
    void set_line_width(int width) { width_ = width; }
    /// Draw the shapes over everything (true) or depth-tested against a scene (false, the default).
    void set_on_top(bool on_top) { on_top_ = on_top; }
    /// Contact points: drawn on top (the default: they sit inside the bodies' outlines), dots of
    /// `size_px` pixels (6) and arrows along the normal `normal_length` long in world units (0.25).
    void set_contacts(bool on_top, float size_px, float normal_length)
    {
        contacts_on_top_ = on_top;
        contact_size_px_ = size_px;
        contact_normal_length_ = normal_length;
    }
    /// The opacity drawTriangle's fill gets on top of Bullet's alpha: 0 draws outlines only, 1
    /// fills as Bullet's OpenGL demos do. 0.3 by default.
    void set_triangle_fill(float opacity) { triangle_fill_ = opacity; }
    /// Colour of draw3dText's labels (SR_DEBUG_WHITE by default).
    void set_text_color(uint32_t color) { text_color_ = color; }
    /// Where reportErrorWarning's text goes; NULL drops it. Default: stderr, prefixed "bullet: ".
    void set_warning_callback(warning_fn fn, void *user)
    {
        warning_ = fn;
        warning_user_ = user;
    }

    /* ---- softrast's conversions, public for a program's own drawing ---- */

    static sr_vec3 to_vec3(const btVector3 &v) { return sr_vec3_make((float)v.x(), (float)v.y(), (float)v.z()); }
    static uint32_t to_color(const btVector3 &c, float alpha = 1.0f)
    {
        return sr_rgba8((float)c.x(), (float)c.y(), (float)c.z(), alpha);
    }
    /// The transform as an sr_mat4 (column-major: the basis' columns, then the origin).
    static sr_mat4 to_mat4(const btTransform &t)
    {
        sr_mat4 m = sr_mat4_identity();
        const btMatrix3x3 &basis = t.getBasis();
        for (int column = 0; column < 3; column++)
            for (int row = 0; row < 3; row++)
                m.m[column * 4 + row] = (float)basis[row][column];
        m.m[12] = (float)t.getOrigin().x();
        m.m[13] = (float)t.getOrigin().y();
        m.m[14] = (float)t.getOrigin().z();
        return m;
    }
    static sr_quat to_quat(const btTransform &t)
    {
        btQuaternion q = t.getRotation();
        sr_quat r = {(float)q.x(), (float)q.y(), (float)q.z(), (float)q.w()};
        return r;
    }

    /* ---- btIDebugDraw ---- */

    void drawLine(const btVector3 &from, const btVector3 &to, const btVector3 &color) override
    {
        sr_debug_line(list_, to_vec3(from), to_vec3(to), style(to_color(color)));
    }
    void drawLine(const btVector3 &from, const btVector3 &to, const btVector3 &from_color,
                  const btVector3 &to_color_) override
    {
        sr_debug_line_gradient(list_, to_vec3(from), to_vec3(to), style(to_color(from_color)), to_color(to_color_));
    }
    void drawSphere(btScalar radius, const btTransform &transform, const btVector3 &color) override
    {
        sr_debug_sphere_oriented(list_, to_vec3(transform.getOrigin()), to_quat(transform), (float)radius,
                                 style(to_color(color)));
    }
    void drawSphere(const btVector3 &p, btScalar radius, const btVector3 &color) override
    {
        sr_debug_sphere(list_, to_vec3(p), (float)radius, style(to_color(color)));
    }
    void drawTriangle(const btVector3 &v0, const btVector3 &v1, const btVector3 &v2, const btVector3 &color,
                      btScalar alpha) override
    {
        sr_debug_triangle_filled(list_, to_vec3(v0), to_vec3(v1), to_vec3(v2),
                                 to_color(color, (float)alpha * triangle_fill_), style(to_color(color)));
    }
    void drawContactPoint(const btVector3 &point_on_b, const btVector3 &normal_on_b, btScalar distance, int life_time,
                          const btVector3 &color) override
    {
        (void)distance;
        (void)life_time;
        sr_debug_style s = sr_debug_style_make(to_color(color), width_, contacts_on_top_);
        sr_vec3 p = to_vec3(point_on_b);
        sr_debug_dot(list_, p, contact_size_px_, s);
        sr_debug_arrow(list_, p, sr_vec3_add(p, sr_vec3_scale(to_vec3(normal_on_b), contact_normal_length_)), s);
    }
    void reportErrorWarning(const char *text) override
    {
        if (warning_)
            warning_(warning_user_, text ? text : "");
    }
    void draw3dText(const btVector3 &location, const char *text) override
    {
        sr_debug_text(list_, to_vec3(location), text, sr_debug_style_make(text_color_, 1, true));
    }
    void setDebugMode(int mode) override { mode_ = mode; }
    int getDebugMode() const override { return mode_; }
    DefaultColors getDefaultColors() const override { return colors_; }
    void setDefaultColors(const DefaultColors &colors) override { colors_ = colors; }

    void drawAabb(const btVector3 &from, const btVector3 &to, const btVector3 &color) override
    {
        sr_aabb box = {to_vec3(from), to_vec3(to)};
        sr_debug_aabb(list_, box, style(to_color(color)));
    }
    void drawBox(const btVector3 &min, const btVector3 &max, const btVector3 &color) override
    {
        drawAabb(min, max, color);
    }
    void drawBox(const btVector3 &min, const btVector3 &max, const btTransform &transform,
                 const btVector3 &color) override
    {
        sr_aabb box = {to_vec3(min), to_vec3(max)};
        sr_debug_box(list_, box, to_mat4(transform), style(to_color(color)));
    }
    void drawTransform(const btTransform &transform, btScalar length) override
    {
        sr_debug_axes(list_, to_mat4(transform), (float)length, style(SR_DEBUG_WHITE));
    }
    void drawCapsule(btScalar radius, btScalar half_height, int up_axis, const btTransform &transform,
                     const btVector3 &color) override
    {
        sr_debug_capsule(list_, along_axis(transform, up_axis, -half_height), along_axis(transform, up_axis, half_height),
                         (float)radius, style(to_color(color)));
    }
    void drawCylinder(btScalar radius, btScalar half_height, int up_axis, const btTransform &transform,
                      const btVector3 &color) override
    {
        sr_debug_cylinder(list_, along_axis(transform, up_axis, -half_height),
                          along_axis(transform, up_axis, half_height), (float)radius, style(to_color(color)));
    }
    /// Bullet's cone: centred on the transform's origin, the apex at +height / 2 along up_axis.
    void drawCone(btScalar radius, btScalar height, int up_axis, const btTransform &transform,
                  const btVector3 &color) override
    {
        sr_debug_cone(list_, along_axis(transform, up_axis, height / 2), along_axis(transform, up_axis, -height / 2),
                      (float)radius, style(to_color(color)));
    }
    /// Empties the list (sr_debug_list_clear, which also grows it to what the last frame asked).
    void clearLines() override
    {
        if (list_)
            sr_debug_list_clear(list_, nullptr);
    }
    void flushLines() override {}

private:
    sr_debug_style style(uint32_t color) const { return sr_debug_style_make(color, width_, on_top_); }

    /// The point at `offset` along local axis `axis` (0, 1, 2) of `transform`.
    static sr_vec3 along_axis(const btTransform &transform, int axis, btScalar offset)
    {
        btVector3 local(0, 0, 0);
        local[axis < 0 || axis > 2 ? 1 : axis] = offset;
        return to_vec3(transform * local);
    }

    static void print_warning(void *user, const char *text)
    {
        (void)user;
        std::fprintf(stderr, "bullet: %s", text);
        size_t length = 0;
        while (text[length])
            length++;
        if (length == 0 || text[length - 1] != '\n')
            std::fputc('\n', stderr);
    }

    sr_debug_list *list_;
    int mode_;
    int width_;
    bool on_top_, contacts_on_top_;
    float contact_size_px_, contact_normal_length_, triangle_fill_;
    uint32_t text_color_;
    DefaultColors colors_;
    warning_fn warning_;
    void *warning_user_;
};

#endif
