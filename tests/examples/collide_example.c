/* collide_example.c — the collision queries' example of the README ("Collision queries"):
 * a hull from points, a sphere, a capsule and a box placed by poses; their distance, penetration,
 * a warm-started intersection test, a ray cast and a linear sweep. Built against the installed
 * library and run by `meson test collide_example`; exits 1 if an answer is not the expected one. */
#include <softrast/softrast.h>

#include <math.h>
#include <stdio.h>

int main(void)
{
    /* a hull: the corners of a unit cube, plus an interior point and a duplicate (both dropped) */
    sr_dvec3 points[10];
    for (int i = 0; i < 8; i++)
        points[i] = sr_dvec3_make(i & 1 ? 0.5 : -0.5, i & 2 ? 0.5 : -0.5, i & 4 ? 0.5 : -0.5);
    points[8] = sr_dvec3_make(0.1, 0.2, 0.3);
    points[9] = points[0];
    sr_hull *hull = NULL;
    sr_error err;
    if (sr_hull_create(points, 10, &hull, &err) != SR_OK) {
        fprintf(stderr, "sr_hull_create: %s\n", err.message);
        return 1;
    }
    sr_hull_view view = sr_hull_get_view(hull);
    printf("hull: %zu vertices, %zu faces, %zu edges\n", view.vertex_count, view.face_count, view.edge_count);

    /* shapes: zero-initialised by the makers, placed by a pose (world = rotation * local + position) */
    sr_shape cube = sr_shape_hull(hull);
    sr_shape ball = sr_shape_with_pose(sr_shape_sphere(0.25), sr_pose_make(sr_dvec3_make(1.5, 0, 0), sr_dquat_identity()));
    sr_shape pill = sr_shape_with_pose(sr_shape_capsule(0.1, 0.4),
                                       sr_pose_make(sr_dvec3_make(0, 0, 0.55),
                                                    sr_dquat_from_axis_angle(sr_dvec3_make(0, 1, 0), M_PI / 2)));

    /* distance: 1.5 - 0.5 - 0.25 between the cube's face and the ball, with the closest points */
    sr_collide_result r;
    sr_collide_distance(&cube, &ball, NULL, &r);
    printf("cube-ball: distance %.6f, closest points (%.3f %.3f %.3f) and (%.3f %.3f %.3f)\n", r.distance, r.point_a.x,
           r.point_a.y, r.point_a.z, r.point_b.x, r.point_b.y, r.point_b.z);
    if (r.hit || fabs(r.distance - 0.75) > 1e-9)
        return 1;

    /* penetration: the capsule lies 0.05 deep across the cube's top face (0.5 + 0.1 - 0.55) */
    sr_collide_penetration(&cube, &pill, NULL, &r);
    printf("cube-capsule: depth %.6f along (%.3f %.3f %.3f)\n", -r.distance, r.normal.x, r.normal.y, r.normal.z);
    if (!r.hit || fabs(-r.distance - 0.05) > 1e-9 || fabs(r.normal.z - 1) > 1e-9)
        return 1;

    /* intersection, warm-started with the axis the previous call left (a cached separating axis) */
    sr_dvec3 axis = sr_dvec3_make(0, 0, 0);
    bool hit;
    sr_collide_intersect(&cube, &ball, &axis, NULL, &hit);
    sr_collide_intersect(&cube, &ball, &axis, NULL, &hit); /* answered by the axis alone */
    printf("cube-ball: %s (axis %.3f %.3f %.3f)\n", hit ? "overlap" : "apart", axis.x, axis.y, axis.z);
    if (hit)
        return 1;

    /* a ray from (3, 0, 0) towards -x hits the ball at x = 1.75, t = 1.25 */
    sr_collide_ray_hit ray;
    sr_collide_ray_cast(&ball, sr_dvec3_make(3, 0, 0), sr_dvec3_make(-1, 0, 0), 10, NULL, &ray);
    printf("ray: t %.6f at (%.3f %.3f %.3f), normal (%.3f %.3f %.3f)\n", ray.t, ray.point.x, ray.point.y, ray.point.z,
           ray.normal.x, ray.normal.y, ray.normal.z);
    if (!ray.hit || fabs(ray.t - 1.25) > 1e-12)
        return 1;

    /* the ball swept by (-2, 0, 0) meets the cube after 0.75 of it: t = 0.375 */
    sr_collide_cast_hit sweep;
    sr_collide_shape_cast(&ball, sr_dvec3_make(-2, 0, 0), &cube, NULL, &sweep);
    printf("sweep: t %.6f, normal (%.3f %.3f %.3f), point (%.3f %.3f %.3f)\n", sweep.t, sweep.normal.x, sweep.normal.y,
           sweep.normal.z, sweep.point.x, sweep.point.y, sweep.point.z);
    if (!sweep.hit || fabs(sweep.t - 0.375) > 1e-9)
        return 1;

    sr_hull_destroy(hull);
    return 0;
}
