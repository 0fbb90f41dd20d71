/* test_collide_sat.c — sr_collide_sat against an independent computation that knows nothing of
 * faces, edges or the Gauss map (collide_sat_check.h: every vertex projected on every cross
 * product of vertex-difference directions, brute-force distances and face planes). The checks
 * (check_pair): the verdict (hit or not) against the brute force, except within the tolerance of
 * touching; on overlap the depth, and the brute-force separation along the returned normal
 * equal to -depth (any normal with the same depth is right: ties are real), the witness points
 * in their shapes with point_a - point_b = depth * normal, and B moved by depth * normal touching
 * A; when apart a separation that the brute force confirms along the returned normal, that never
 * exceeds the distance and that no face plane (either way) beats; every traced axis's intervals
 * and separation recomputed by projecting all vertices; the same bits on a second call. The
 * pairs: random pairs of every kind, touching, identical, nested and aligned boxes, ridges
 * crossing at small angles, shapes in one plane, hulls past the stack tables; and the box-box and
 * triangle-box paths against the generic one (the same shapes as hulls), analytic cases,
 * statuses, the hull's edge-to-face table. */
#include "collide_sat_check.h"

#include "../src/collide/collide_internal.h" /* the hull's edge_faces, which the Gauss map reads */

#include <criterion/criterion.h>
#include <softrast/collide.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes for the tests ---- */

enum {
    KIND_BOX,
    KIND_FLAT_BOX,
    KIND_TRIANGLE,
    KIND_SEGMENT,
    KIND_POINT,
    KIND_HULL,
    KIND_FLAT_HULL,
    KIND_NEEDLE_HULL,
    KIND_DEGENERATE_TRIANGLE,
    KIND_LINE_HULL,
    KIND_COUNT
};

static void random_shape(rng *r, int kind, double scale, poly *p)
{
    sr_dvec3 pts[MAX_VERTICES];
    switch (kind) {
    case KIND_BOX:
        make_box(p, sr_dvec3_scale(rng_dvec3(r, 0.2, 1.5), scale));
        break;
    case KIND_FLAT_BOX: {
        sr_dvec3 h = sr_dvec3_scale(rng_dvec3(r, 0.2, 1.5), scale);
        h.z = 0.0;
        make_box(p, h);
        break;
    }
    case KIND_TRIANGLE:
        for (int i = 0; i < 3; i++)
            pts[i] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        make_points_shape(p, SR_SHAPE_TRIANGLE, pts, 3);
        break;
    case KIND_DEGENERATE_TRIANGLE:
        pts[0] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        pts[1] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        pts[2] = sr_dvec3_add(pts[0], sr_dvec3_scale(sr_dvec3_sub(pts[1], pts[0]), rng_double_range(r, -0.5, 1.5)));
        make_points_shape(p, SR_SHAPE_TRIANGLE, pts, 3);
        break;
    case KIND_SEGMENT:
        pts[0] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        pts[1] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        make_points_shape(p, SR_SHAPE_SEGMENT, pts, 2);
        break;
    case KIND_POINT:
        pts[0] = (sr_dvec3){0, 0, 0}; // a point shape sits at its pose's origin
        make_points_shape(p, SR_SHAPE_POINT, pts, 1);
        break;
    case KIND_HULL: {
        int n = 4 + (int)(rng_next(r) % 9);
        for (int i = 0; i < n; i++)
            pts[i] = sr_dvec3_scale(rng_dvec3(r, -1, 1), scale);
        if (n > 6) { /* a duplicate and an interior point */
            pts[n - 1] = pts[0];
            pts[n - 2] = sr_dvec3_scale(sr_dvec3_add(pts[1], pts[2]), 0.5);
        }
        make_hull(p, pts, n);
        break;
    }
    case KIND_FLAT_HULL: {
        int n = 3 + (int)(rng_next(r) % 6);
        for (int i = 0; i < n; i++) {
            double x = rng_double_range(r, -1, 1);
            double y = rng_double_range(r, -1, 1);
            pts[i] = sr_dvec3_make(x * scale, y * scale, 0.0);
        }
        make_hull(p, pts, n);
        break;
    }
    case KIND_LINE_HULL: { /* collinear points (a hull of dimension 1), or one point repeated */
        int n = 2 + (int)(rng_next(r) % 4);
        sr_dvec3 direction = rng_unit_dvec3(r);
        bool one_point = rng_next(r) % 4 == 0;
        for (int i = 0; i < n; i++)
            pts[i] = sr_dvec3_scale(direction, one_point ? 0.3 * scale : rng_double_range(r, -1, 1) * scale);
        make_hull(p, pts, n);
        break;
    }
    default: { /* needle: nearly collinear */
        int n = 4 + (int)(rng_next(r) % 4);
        for (int i = 0; i < n; i++) {
            double t = rng_double_range(r, -1, 1);
            sr_dvec3 jitter = sr_dvec3_scale(rng_dvec3(r, -1, 1), 1e-3);
            pts[i] = sr_dvec3_scale(sr_dvec3_add(sr_dvec3_make(t, 0.3 * t, 0.1 * t), jitter), scale);
        }
        make_hull(p, pts, n);
        break;
    }
    }
}

static sr_dquat maybe_aligned_rotation(rng *r)
{
    switch (rng_next(r) % 4) {
    case 0:
        return sr_dquat_identity(); /* coplanar faces, parallel edges */
    case 1:
        return sr_dquat_from_axis_angle(sr_dvec3_make(0, 0, 1), rng_double_range(r, -M_PI, M_PI)); /* edges along z */
    default:
        return rng_rotation(r);
    }
}

/* ---- tests ---- */

Test(collide_sat, random_pairs_of_every_kind_against_the_brute_force)
{
    rng r = {0x5a7};
    check_stats stats = {0};
    const double scales[3] = {1.0, 1e-3, 1e3};
    int pairs = BRUTE_COUNT(8000, 800);
    const char *stress = getenv("SOFTRAST_SAT_PAIRS"); /* a longer run by hand: SOFTRAST_SAT_PAIRS=200000 */
    if (stress && atoi(stress) > 0)
        pairs = atoi(stress);
    for (int index = 0; index < pairs; index++) {
        poly pa, pb;
        poly *a = &pa, *b = &pb;
        double scale = scales[index % 7 == 0 ? 1 + index % 2 : 0];
        int kind_a = (int)(rng_next(&r) % KIND_COUNT), kind_b = (int)(rng_next(&r) % KIND_COUNT);
        random_shape(&r, kind_a, scale, a);
        random_shape(&r, kind_b, scale, b);
        sr_dvec3 far = index % 5 == 0 ? sr_dvec3_make(1e3, -1e3, 1e3) : sr_dvec3_make(0, 0, 0);
        sr_pose pose_a = {sr_dvec3_add(far, sr_dvec3_scale(rng_dvec3(&r, -0.5, 0.5), scale)),
                          maybe_aligned_rotation(&r)};
        double reach = index % 3 == 0 ? 0.2 : (index % 3 == 1 ? 0.6 : 1.5);
        sr_pose pose_b = {sr_dvec3_add(far, sr_dvec3_scale(rng_dvec3(&r, -reach, reach), scale)),
                          maybe_aligned_rotation(&r)};
        poly_place(a, pose_a);
        poly_place(b, pose_b);
        if (index % 4 == 3) {
            /* near touching: B moved out by its depth along the normal, then by 0, +-1e-6 or
             * +-1e-4 of the size */
            sr_collide_result first;
            sr_collide_sat(&a->shape, &b->shape, NULL, &first);
            const double offsets[5] = {0, 1e-6, -1e-6, 1e-4, -1e-4};
            double size = fmax(extent(a), extent(b));
            double move = -first.distance + offsets[(index / 4) % 5] * size;
            pose_b.position = sr_dvec3_add(pose_b.position, sr_dvec3_scale(first.normal, move));
            poly_place(b, pose_b);
        }
        check_pair(a, b, index, &stats);
        poly_free(a);
        poly_free(b);
    }
    cr_log_info("%d pairs: %d hits, %d misses, %d within the tolerance of touching", pairs, stats.hits, stats.misses,
                stats.near_touching);
    cr_assert(stats.hits > pairs / 5 && stats.misses > pairs / 5, "%d hits, %d misses: not a mix", stats.hits,
              stats.misses);
}

Test(collide_sat, touching_identical_nested_and_aligned_boxes)
{
    rng r = {0xb0e5};
    check_stats stats = {0};
    for (int index = 0; index < BRUTE_COUNT(2000, 200); index++) {
        poly pa, pb;
        poly *a = &pa, *b = &pb;
        sr_dvec3 h = rng_dvec3(&r, 0.3, 1.5);
        make_box(a, h);
        sr_dquat q = index % 3 ? sr_dquat_identity() : rng_rotation(&r);
        sr_dvec3 position = rng_dvec3(&r, -1, 1);
        poly_place(a, (sr_pose){position, q});
        switch (index % 4) {
        case 0: /* identical, same pose: depth the smallest full extent */
            make_box(b, h);
            poly_place(b, a->shape.pose);
            break;
        case 1: /* nested: a smaller box inside */
            make_box(b, sr_dvec3_scale(h, 0.3));
            poly_place(b, (sr_pose){sr_dvec3_add(position, sr_dquat_rotate(q, sr_dvec3_scale(h, 0.2))), q});
            break;
        case 2: { /* face to face, touching exactly or 1e-6 apart or into each other */
            sr_dvec3 hb = rng_dvec3(&r, 0.3, 1.5);
            make_box(b, hb);
            double gap = (double)(index % 3) * 1e-6 - 1e-6;
            sr_dvec3 offset = sr_dvec3_make(h.x + hb.x + gap, rng_double_range(&r, -0.5, 0.5), 0.25);
            poly_place(b, (sr_pose){sr_dvec3_add(position, sr_dquat_rotate(q, offset)), q});
            break;
        }
        default: { /* rotated about a shared axis: parallel edges */
            sr_dvec3 hb = rng_dvec3(&r, 0.3, 1.5);
            make_box(b, hb);
            sr_dquat turn =
                sr_dquat_mul(q, sr_dquat_from_axis_angle(sr_dvec3_make(0, 0, 1), rng_double_range(&r, 0, 1)));
            poly_place(b, (sr_pose){sr_dvec3_add(position, sr_dquat_rotate(q, rng_dvec3(&r, -2, 2))), turn});
            break;
        }
        }
        check_pair(a, b, index, &stats);
        if (index % 4 == 0) {
            sr_collide_result result;
            sr_collide_sat(&a->shape, &b->shape, NULL, &result);
            double smallest = 2 * fmin(h.x, fmin(h.y, h.z));
            cr_assert(result.hit && fabs(result.distance + smallest) < 1e-12, "identical boxes: depth %.17g, not %.17g",
                      -result.distance, smallest);
        }
    }
}

/* A shape against itself at the same pose, and against a copy shrunk inside it: every kind. The
 * depth of a shape against itself is its least width (the brute force's), 0 for flat ones. */
Test(collide_sat, identical_and_nested_shapes_of_every_kind)
{
    rng r = {0x1de7};
    check_stats stats = {0};
    for (int index = 0; index < BRUTE_COUNT(600, 60); index++) {
        poly pa, pb;
        poly *a = &pa, *b = &pb;
        int kind = index % KIND_COUNT;
        rng copy = r;
        random_shape(&r, kind, index % 3 == 0 ? 1e-3 : 1.0, a);
        random_shape(&copy, kind, index % 3 == 0 ? 1e-3 : 1.0, b); /* the same draws: the same shape */
        r = copy;
        sr_pose pose = {index % 2 ? rng_dvec3(&r, -1e3, 1e3) : sr_dvec3_make(0, 0, 0), rng_rotation(&r)};
        poly_place(a, pose);
        if (index % 4 == 3 && kind != KIND_POINT && kind != KIND_SEGMENT) {
            /* nested: B is A's points pulled halfway towards their centre */
            sr_dvec3 centre = {0, 0, 0};
            for (int i = 0; i < b->local_count; i++)
                centre = sr_dvec3_add(centre, sr_dvec3_scale(b->local[i], 1.0 / b->local_count));
            sr_dvec3 shrunk[MAX_VERTICES];
            for (int i = 0; i < b->local_count; i++)
                shrunk[i] = sr_dvec3_add(centre, sr_dvec3_scale(sr_dvec3_sub(b->local[i], centre), 0.5));
            int count = b->local_count;
            sr_shape_type type = b->shape.type;
            sr_dvec3 half = sr_dvec3_scale(b->shape.half_extents, 0.5);
            poly_free(b);
            if (type == SR_SHAPE_BOX)
                make_box(b, half);
            else if (type == SR_SHAPE_HULL)
                make_hull(b, shrunk, count);
            else
                make_points_shape(b, type, shrunk, count);
        }
        poly_place(b, pose);
        check_pair(a, b, index, &stats);
        poly_free(a);
        poly_free(b);
    }
    cr_assert(stats.hits > 0);
}

/* Ridges crossing at a small angle: two wedges (sharp triangular prisms, as hulls) or two boxes
 * turned 45 degrees, one edge up and one edge down, crossing at angle theta in the top view and
 * overlapping by 1e-3 where they cross. The minimum translation is along the cross product of the
 * two edges (a face of A - B as thin as theta) as long as the ridges' lengths times theta exceed
 * the overlap; then the faces would need ~ length * theta. Edge pairs below 1e-9 rad stand for
 * faces so thin that skipping them costs less than the tolerance; above it they must be found. */
Test(collide_sat, ridges_crossing_at_small_angles)
{
    const double thetas[8] = {0.0, 1e-12, 1e-9, 1e-7, 1e-5, 1e-3, 0.02, 0.3};
    check_stats stats = {0};
    int index = 0;
    for (int t = 0; t < 8; t++)
        for (int boxes = 0; boxes < 2; boxes++)
            for (int shift = 0; shift < 3; shift++, index++) {
                double theta = thetas[t];
                poly pa, pb;
                poly *a = &pa, *b = &pb;
                sr_dquat turn_up, turn_down;
                double reach; /* from the centre to the ridge */
                if (boxes) {
                    make_box(a, sr_dvec3_make(1.5, 0.5, 0.5));
                    make_box(b, sr_dvec3_make(1.5, 0.5, 0.5));
                    turn_up = sr_dquat_from_axis_angle(sr_dvec3_make(1, 0, 0), M_PI / 4); /* an edge up */
                    reach = 0.5 * sqrt(2.0);
                } else {
                    /* a wedge: its ridge along x at z = 1, its base 0.2 wide at z = 0 */
                    sr_dvec3 wedge[6] = {{-1.5, 0, 1},   {1.5, 0, 1},    {-1.5, -0.1, 0},
                                         {1.5, -0.1, 0}, {-1.5, 0.1, 0}, {1.5, 0.1, 0}};
                    for (int i = 0; i < 6; i++)
                        wedge[i].z -= 0.5;
                    make_hull(a, wedge, 6);
                    make_hull(b, wedge, 6);
                    turn_up = sr_dquat_identity();
                    reach = 0.5;
                }
                /* B upside down (half a turn about x), then turned by theta about z */
                turn_down = sr_dquat_mul(sr_dquat_from_axis_angle(sr_dvec3_make(0, 0, 1), theta),
                                         sr_dquat_mul(sr_dquat_from_axis_angle(sr_dvec3_make(1, 0, 0), M_PI), turn_up));
                double x = 0.3 * (shift - 1); /* where along the ridges they cross */
                poly_place(a, (sr_pose){{0, 0, 0}, turn_up});
                poly_place(b, (sr_pose){{x, 0, 2 * reach - 1e-3}, turn_down});
                check_pair(a, b, index, &stats);
                sr_collide_result result;
                sr_collide_sat(&a->shape, &b->shape, NULL, &result);
                if (theta >= 1e-3) /* the crossing's cross product: straight up, 1e-3 deep */
                    cr_assert(result.hit && fabs(result.distance + 1e-3) < 1e-9 && result.normal.z > 0.999,
                              "theta %g %s: distance %.17g normal (%g, %g, %g)", theta, boxes ? "boxes" : "wedges",
                              result.distance, result.normal.x, result.normal.y, result.normal.z);
                poly_free(a);
                poly_free(b);
            }
}

/* A segment or a triangle's edge lying along a box's edge (touching): in the plane across the
 * chosen axis, their projections share a line, and the crossing of two collinear edges is
 * rounding anywhere along it; it must not count as a point of the contact (it once put the
 * segment's end, 0.03 off the box, into the witness: tests/collide_cases/
 * sat-touching-segments-normal-seed8.jsonl line 15). The segment reaches past either end of the
 * box's edge or both, or lies within it; random rotations, at 1 and 1e3 from the origin. */
Test(collide_sat, edges_lying_along_a_box_edge)
{
    rng r = {0xed6e};
    check_stats stats = {0};
    int count = BRUTE_COUNT(1200, 150);
    for (int index = 0; index < count; index++) {
        poly pa, pb;
        poly *a = &pa, *b = &pb;
        sr_dvec3 h = rng_dvec3(&r, 0.1, 1.0);
        make_box(b, h);
        /* the edge along axis k at the corner signs (sy, sz) of the two other axes */
        int k = (int)(rng_next(&r) % 3);
        double s1 = rng_next(&r) % 2 ? 1.0 : -1.0, s2 = rng_next(&r) % 2 ? 1.0 : -1.0;
        double hk[3] = {h.x, h.y, h.z}, corner[3];
        corner[k] = 0.0;
        corner[(k + 1) % 3] = s1 * hk[(k + 1) % 3];
        corner[(k + 2) % 3] = s2 * hk[(k + 2) % 3];
        double low = rng_double_range(&r, -2.0, 0.5) * hk[k], high = rng_double_range(&r, -0.5, 2.0) * hk[k];
        if (high < low + 0.05 * hk[k])
            high = low + 0.05 * hk[k];
        sr_dvec3 ends[3];
        for (int e = 0; e < 2; e++) {
            double c[3] = {corner[0], corner[1], corner[2]};
            c[k] = e ? high : low;
            ends[e] = sr_dvec3_make(c[0], c[1], c[2]);
        }
        if (index % 3 == 2) { /* a triangle whose edge it is, leaning out of the box */
            double c[3] = {corner[0], corner[1], corner[2]};
            c[(k + 1) % 3] += s1 * rng_double_range(&r, 0.0, 1.0);
            c[(k + 2) % 3] += s2 * rng_double_range(&r, 0.0, 1.0);
            c[k] = rng_double_range(&r, low, high);
            ends[2] = sr_dvec3_make(c[0], c[1], c[2]);
            make_points_shape(a, SR_SHAPE_TRIANGLE, ends, 3);
        } else {
            make_points_shape(a, SR_SHAPE_SEGMENT, ends, 2);
        }
        sr_dvec3 far = index % 4 == 0 ? sr_dvec3_make(1e3, 1e3, -1e3) : sr_dvec3_make(0, 0, 0);
        sr_pose pose = {sr_dvec3_add(far, rng_dvec3(&r, -1, 1)),
                        index % 5 == 0 ? sr_dquat_identity() : rng_rotation(&r)};
        poly_place(a, pose);
        poly_place(b, pose);
        check_pair(a, b, index, &stats);
        check_pair(b, a, index, &stats);
        poly_free(a);
        poly_free(b);
    }
    cr_assert_eq(stats.near_touching, 2 * count, "%d of %d pairs not touching", stats.near_touching, 2 * count);
}

/* Flat shapes in one plane: touching (depth 0) where they overlap in it, apart by their side
 * normals where they do not. */
Test(collide_sat, coplanar_flat_shapes)
{
    rng r = {0xc0f1a7};
    check_stats stats = {0};
    int count = BRUTE_COUNT(1500, 150);
    for (int index = 0; index < count; index++) {
        poly pa, pb;
        poly *a = &pa, *b = &pb;
        const int kinds[4] = {KIND_TRIANGLE, KIND_FLAT_HULL, KIND_FLAT_BOX, KIND_SEGMENT};
        int kind_a = kinds[rng_next(&r) % 4], kind_b = kinds[rng_next(&r) % 4];
        random_shape(&r, kind_a, 1.0, a);
        random_shape(&r, kind_b, 1.0, b);
        /* everything in the plane z = 0 of the shared rotation (the triangles' and segments'
         * points are flattened there) */
        for (int k = 0; k < 2; k++) {
            poly *p = k ? b : a;
            if (p->shape.type == SR_SHAPE_TRIANGLE || p->shape.type == SR_SHAPE_SEGMENT) {
                for (int i = 0; i < p->local_count; i++) {
                    p->local[i].z = 0.0;
                    p->shape.points[i].z = 0.0;
                }
            }
        }
        sr_dquat q = index % 2 ? rng_rotation(&r) : sr_dquat_identity();
        sr_dvec3 origin = index % 3 == 0 ? sr_dvec3_make(1e3, 1e3, -1e3) : sr_dvec3_make(0, 0, 0);
        sr_dvec3 offset = rng_dvec3(&r, -1.5, 1.5);
        offset.z = 0.0;
        poly_place(a, (sr_pose){origin, q});
        poly_place(b, (sr_pose){sr_dvec3_add(origin, sr_dquat_rotate(q, offset)), q});
        check_pair(a, b, index, &stats);
        poly_free(a);
        poly_free(b);
    }
    cr_log_info("coplanar: %d hits, %d misses, %d near touching", stats.hits, stats.misses, stats.near_touching);
    cr_assert(stats.hits > count / 5 && stats.misses > count / 5, "%d hits, %d misses", stats.hits, stats.misses);
}

/* Hulls past the SAT's caches (1,024 faces and edges kept on the stack; beyond, the bounds are
 * found again or loosened): a 1,200-point sphere (about 2,400 faces, 3,600 edges) and a 1,200-gon
 * against boxes and small hulls. Too big for the brute force over vertex pairs: the depth is
 * checked against the smallest overlap over directions (2,000 random, the best 20 refined by a
 * descent over small rotations), which no direction may undercut, and recomputed along the
 * normal by projecting every vertex. */
static double overlap_along(const sr_dvec3 *pa, int na, const sr_dvec3 *pb, int nb, sr_dvec3 n)
{
    double a_high = -INFINITY, b_low = INFINITY;
    for (int i = 0; i < na; i++)
        a_high = fmax(a_high, sr_dvec3_dot(pa[i], n));
    for (int i = 0; i < nb; i++)
        b_low = fmin(b_low, sr_dvec3_dot(pb[i], n));
    return a_high - b_low;
}

Test(collide_sat, big_hulls_past_the_caches)
{
    rng r = {0xb16};
    enum { BIG = 1200 };
    static sr_dvec3 local[BIG], world_a[BIG], world_b[16];
    for (int flat = 0; flat < 2; flat++) {
        for (int i = 0; i < BIG; i++) {
            local[i] = rng_unit_dvec3(&r);
            if (flat) { /* a polygon of 1,200 corners */
                double angle = 2 * M_PI * i / BIG;
                local[i] = sr_dvec3_make(cos(angle), sin(angle), 0);
            }
        }
        sr_hull *big;
        cr_assert_eq(sr_hull_create(local, BIG, &big, NULL), SR_OK);
        sr_hull_view view = sr_hull_get_view(big);
        cr_assert(flat || (view.face_count > 1024 && view.edge_count > 1024), "%zu faces, %zu edges", view.face_count,
                  view.edge_count);
        for (int index = 0; index < BRUTE_COUNT(24, 4); index++) {
            sr_shape a =
                sr_shape_with_pose(sr_shape_hull(big), sr_pose_make(rng_dvec3(&r, -0.2, 0.2), rng_rotation(&r)));
            poly pb;
            if (index % 2)
                make_box(&pb, rng_dvec3(&r, 0.1, 0.6));
            else {
                sr_dvec3 pts[10];
                for (int i = 0; i < 10; i++)
                    pts[i] = rng_dvec3(&r, -0.5, 0.5);
                make_hull(&pb, pts, 10);
            }
            poly_place(&pb,
                       (sr_pose){sr_dvec3_scale(rng_unit_dvec3(&r), rng_double_range(&r, 0.6, 1.3)), rng_rotation(&r)});
            for (size_t i = 0; i < view.vertex_count; i++)
                world_a[i] = sr_pose_apply(a.pose, view.vertices[i]);
            for (int i = 0; i < pb.count; i++)
                world_b[i] = pb.world[i];
            int na = (int)view.vertex_count, nb = pb.count;
            sr_collide_result result;
            cr_assert_eq(sr_collide_sat(&a, &pb.shape, NULL, &result), SR_COLLIDE_OK);
            double along = -overlap_along(world_a, na, world_b, nb, result.normal);
            cr_assert(fabs(along - result.distance) < 1e-9,
                      "flat %d pair %d: separation along the normal %.17g, "
                      "answer %.17g",
                      flat, index, along, result.distance);
            if (!result.hit || flat) { /* a flat hull's depth is 0; apart: a lower bound, checked along its normal */
                poly_free(&pb);
                continue;
            }
            /* no direction overlaps less than the depth */
            double depth = -result.distance, least = INFINITY;
            sr_dvec3 best[20];
            double best_overlap[20];
            int kept = 0;
            for (int t = 0; t < 2000; t++) {
                sr_dvec3 n = rng_unit_dvec3(&r);
                double o = overlap_along(world_a, na, world_b, nb, n);
                int slot;
                if (kept < 20)
                    slot = kept++;
                else if (o < best_overlap[19])
                    slot = 19;
                else
                    continue;
                best[slot] = n;
                best_overlap[slot] = o;
                for (int j = slot; j > 0 && best_overlap[j] < best_overlap[j - 1]; j--) {
                    sr_dvec3 sn = best[j];
                    best[j] = best[j - 1];
                    best[j - 1] = sn;
                    double so = best_overlap[j];
                    best_overlap[j] = best_overlap[j - 1];
                    best_overlap[j - 1] = so;
                }
            }
            for (int k = 0; k < kept; k++) {
                sr_dvec3 n = best[k];
                double o = best_overlap[k];
                for (double step = 0.05; step > 1e-7; step *= 0.6)
                    for (int t = 0; t < 12; t++) {
                        sr_dvec3 m = sr_dvec3_normalize(sr_dvec3_add(n, sr_dvec3_scale(rng_unit_dvec3(&r), step)));
                        double om = overlap_along(world_a, na, world_b, nb, m);
                        if (om < o) {
                            o = om;
                            n = m;
                        }
                    }
                least = fmin(least, o);
            }
            cr_assert(depth <= least + 1e-9, "pair %d: depth %.17g, but a direction overlaps only %.17g", index, depth,
                      least);
            poly_free(&pb);
        }
        sr_hull_destroy(big);
    }
}

/* The same boxes and triangles as hulls of their corners: the generic test must agree with the
 * specialised ones. */
Test(collide_sat, box_box_and_triangle_box_agree_with_the_generic_test)
{
    rng r = {0x9e4};
    for (int index = 0; index < BRUTE_COUNT(3000, 300); index++) {
        poly a, b, ha, hb;
        make_box(&a, rng_dvec3(&r, 0.1, 1.5));
        if (index % 2) {
            make_box(&b, rng_dvec3(&r, 0.1, 1.5));
        } else {
            sr_dvec3 t[3] = {rng_dvec3(&r, -1.5, 1.5), rng_dvec3(&r, -1.5, 1.5), rng_dvec3(&r, -1.5, 1.5)};
            make_points_shape(&b, SR_SHAPE_TRIANGLE, t, 3);
        }
        sr_pose pose_a = {rng_dvec3(&r, -1, 1), maybe_aligned_rotation(&r)};
        sr_pose pose_b = {rng_dvec3(&r, -2, 2), maybe_aligned_rotation(&r)};
        poly_place(&a, pose_a);
        poly_place(&b, pose_b);
        make_hull(&ha, a.local, a.local_count);
        make_hull(&hb, b.local, b.local_count);
        poly_place(&ha, pose_a);
        poly_place(&hb, pose_b);
        for (int order = 0; order < 2; order++) {
            const poly *first = order ? &b : &a, *second = order ? &a : &b;
            const poly *first_hull = order ? &hb : &ha, *second_hull = order ? &ha : &hb;
            sr_collide_result special, generic;
            sr_collide_sat(&first->shape, &second->shape, NULL, &special);
            sr_collide_sat(&first_hull->shape, &second_hull->shape, NULL, &generic);
            /* the depth is exact on both; apart, each is a lower bound of the distance (the flat
             * triangle's prism has axes of its own: the generic one may tell more) */
            cr_assert_eq(special.hit, generic.hit, "pair %d order %d: %.17g, generic %.17g", index, order,
                         special.distance, generic.distance);
            if (special.hit)
                cr_assert(fabs(special.distance - generic.distance) < 1e-9,
                          "pair %d order %d: depth %.17g, generic "
                          "%.17g",
                          index, order, -special.distance, -generic.distance);
        }
        poly_free(&ha);
        poly_free(&hb);
    }
}

Test(collide_sat, analytic_answers)
{
    /* two unit cubes, B 1.5 along x and 0.25 along y: overlap 0.5 along x */
    sr_shape a = sr_shape_box(sr_dvec3_make(1, 1, 1));
    sr_shape b = sr_shape_with_pose(sr_shape_box(sr_dvec3_make(1, 1, 1)),
                                    sr_pose_make(sr_dvec3_make(1.5, 0.25, 0), sr_dquat_identity()));
    sr_collide_result result;
    cr_assert_eq(sr_collide_sat(&a, &b, NULL, &result), SR_COLLIDE_OK);
    cr_assert(result.hit && fabs(result.distance + 0.5) < 1e-15);
    cr_assert(fabs(result.normal.x - 1) < 1e-15 && fabs(result.normal.y) < 1e-15 && fabs(result.normal.z) < 1e-15);
    cr_assert(fabs(result.point_a.x - 1.0) < 1e-15 && fabs(result.point_b.x - 0.5) < 1e-15, "witness x %.17g and %.17g",
              result.point_a.x, result.point_b.x);
    /* the same apart along z by 3: separation 3 */
    b.pose.position = sr_dvec3_make(0.5, 0.25, 5);
    sr_collide_sat(&a, &b, NULL, &result);
    cr_assert(!result.hit && fabs(result.distance - 3.0) < 1e-15 && fabs(result.normal.z - 1) < 1e-15);
    cr_assert(fabs(result.point_b.z - result.point_a.z - 3.0) < 1e-15);
    /* A cube turned 45 degrees about z, its edge towards a triangle lying in the plane x = 1.2,
     * facing it: the edge reaches sqrt(2) = 1.414..., overlap 0.2142... */
    sr_shape turned = sr_shape_with_pose(
        sr_shape_box(sr_dvec3_make(1, 1, 1)),
        sr_pose_make(sr_dvec3_make(0, 0, 0), sr_dquat_from_axis_angle(sr_dvec3_make(0, 0, 1), M_PI / 4)));
    sr_shape triangle =
        sr_shape_triangle(sr_dvec3_make(1.2, -5, -5), sr_dvec3_make(1.2, 5, -5), sr_dvec3_make(1.2, 0, 5));
    sr_collide_sat(&turned, &triangle, NULL, &result);
    cr_assert(result.hit && fabs(result.distance + (sqrt(2.0) - 1.2)) < 1e-14, "%.17g", result.distance);
    cr_assert(fabs(result.normal.x - 1.0) < 1e-14);
    sr_collide_sat(&triangle, &turned, NULL, &result); /* the other order: the opposite normal */
    cr_assert(result.hit && fabs(result.distance + (sqrt(2.0) - 1.2)) < 1e-14);
    cr_assert(fabs(result.normal.x + 1.0) < 1e-14);
    cr_assert(fabs(result.point_a.x - 1.2) < 1e-14 && fabs(result.point_b.x - sqrt(2.0)) < 1e-14);
    /* two segments crossing 0.5 apart: the distance, along their common normal */
    sr_shape s1 = sr_shape_segment(sr_dvec3_make(-1, 0, 0), sr_dvec3_make(1, 0, 0));
    sr_shape s2 = sr_shape_segment(sr_dvec3_make(0, -1, 0.5), sr_dvec3_make(0, 1, 0.5));
    sr_collide_sat(&s1, &s2, NULL, &result);
    cr_assert(!result.hit && fabs(result.distance - 0.5) < 1e-15 && fabs(result.normal.z - 1) < 1e-15);
    /* touching within rounding is touching: boxes face to face and triangles lying in one plane,
     * turned so that their coordinates round, are hits at distance 0 */
    rng r = {0x70c4};
    for (int i = 0; i < 200; i++) {
        sr_dquat q = rng_rotation(&r);
        sr_dvec3 h = rng_dvec3(&r, 0.2, 2), origin = rng_dvec3(&r, -50, 50);
        sr_shape left = sr_shape_with_pose(sr_shape_box(h), sr_pose_make(origin, q));
        sr_shape right = sr_shape_with_pose(
            sr_shape_box(h), sr_pose_make(sr_dvec3_add(origin, sr_dquat_rotate(q, sr_dvec3_make(2 * h.x, 0.3, 0))), q));
        sr_collide_sat(&left, &right, NULL, &result);
        cr_assert(result.hit && result.distance == 0.0, "boxes face to face: distance %.3g", result.distance);
        sr_dvec3 t[3] = {rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1), rng_dvec3(&r, -1, 1)};
        sr_dvec3 shift = sr_dvec3_scale(sr_dvec3_add(sr_dvec3_sub(t[1], t[0]), sr_dvec3_sub(t[2], t[0])), 0.2);
        sr_shape one = sr_shape_with_pose(sr_shape_triangle(t[0], t[1], t[2]), sr_pose_make(origin, q));
        sr_shape two = sr_shape_with_pose(
            sr_shape_triangle(sr_dvec3_add(t[0], shift), sr_dvec3_add(t[1], shift), sr_dvec3_add(t[2], shift)),
            sr_pose_make(origin, q));
        sr_collide_sat(&one, &two, NULL, &result);
        cr_assert(result.hit && result.distance == 0.0, "triangles in one plane: distance %.3g", result.distance);
    }
    /* a point on a box's face touches it */
    sr_shape point =
        sr_shape_with_pose(sr_shape_point(), sr_pose_make(sr_dvec3_make(1, 0.3, 0.2), sr_dquat_identity()));
    sr_collide_sat(&a, &point, NULL, &result);
    cr_assert(result.hit && result.distance == 0.0);
}

Test(collide_sat, statuses_and_traces)
{
    sr_shape box = sr_shape_box(sr_dvec3_make(1, 1, 1));
    sr_shape sphere = sr_shape_sphere(1);
    sr_collide_result result;
    cr_assert_eq(sr_collide_sat(&box, &sphere, NULL, &result), SR_COLLIDE_UNSUPPORTED);
    cr_assert_eq(result.status, SR_COLLIDE_UNSUPPORTED);
    cr_assert_eq(sr_collide_sat(&box, &box, NULL, NULL), SR_COLLIDE_OK, "no result wanted: only the status");
    cr_assert_eq(sr_collide_sat(NULL, &box, NULL, &result), SR_COLLIDE_INVALID_SHAPE);
    sr_shape rounded = box;
    rounded.rounding = 0.1;
    cr_assert_eq(sr_collide_sat(&rounded, &box, NULL, &result), SR_COLLIDE_UNSUPPORTED);
    sr_shape bad = box;
    bad.half_extents.y = NAN;
    cr_assert_eq(sr_collide_sat(&box, &bad, NULL, &result), SR_COLLIDE_INVALID_SHAPE);
    cr_assert(!result.hit && result.distance == 0.0);
    bad = box;
    bad.pose.rotation = (sr_dquat){0.5, 0, 0, 0.5}; /* not unit */
    cr_assert_eq(sr_collide_sat(&bad, &box, NULL, &result), SR_COLLIDE_INVALID_SHAPE);
    /* a trace too small: the axes past it are counted as dropped; the counts start from 0 */
    sr_sat_axis axes[4];
    sr_collide_trace trace = {.sat = axes, .sat_capacity = 4, .sat_count = 99, .dropped = 7};
    sr_collide_options options = {.trace = &trace};
    sr_shape other = sr_shape_with_pose(
        box, sr_pose_make(sr_dvec3_make(0.5, 0.5, 3), sr_dquat_from_axis_angle(sr_dvec3_make(1, 1, 0), 0.3)));
    cr_assert_eq(sr_collide_sat(&box, &other, &options, &result), SR_COLLIDE_OK);
    cr_assert_eq(trace.sat_count, 4);
    cr_assert_eq(trace.dropped, (size_t)result.iterations - 4, "%zu dropped of %d", trace.dropped, result.iterations);
    cr_assert_eq(result.iterations, 15, "box-box tests 15 axes when no edge pair is parallel, not %d",
                 result.iterations);
}

/* The hull's edge-to-face table that the Gauss map reads: each edge's two faces both hold its two
 * ends, one after the other in their loops, once each way round (a solid), or the flat hull's two
 * sides. */
Test(collide_sat, hull_edges_know_their_two_faces)
{
    rng r = {0xed6e};
    sr_dvec3 points[64];
    for (int index = 0; index < 200; index++) {
        int n = 4 + index % 60;
        bool flat = index % 5 == 0;
        for (int i = 0; i < n; i++) {
            points[i] = rng_dvec3(&r, -1, 1);
            if (flat)
                points[i].z = 0.25;
        }
        sr_hull *hull;
        cr_assert_eq(sr_hull_create(points, (size_t)n, &hull, NULL), SR_OK);
        sr_hull_view view = sr_hull_get_view(hull);
        for (size_t e = 0; e < view.edge_count; e++) {
            uint32_t a = view.edges[2 * e], c = view.edges[2 * e + 1];
            int forward = 0, backward = 0;
            for (int side = 0; side < 2; side++) {
                uint32_t f = hull->edge_faces[2 * e + side];
                cr_assert(f < view.face_count, "hull %d edge %zu: face %u", index, e, f);
                const sr_hull_face *face = &view.faces[f];
                const uint32_t *loop = view.face_vertices + face->first;
                for (uint32_t k = 0; k < face->count; k++) {
                    forward += loop[k] == a && loop[(k + 1) % face->count] == c;
                    backward += loop[k] == c && loop[(k + 1) % face->count] == a;
                }
            }
            cr_assert(forward == 1 && backward == 1, "hull %d edge %zu: runs %d times one way, %d the other", index, e,
                      forward, backward);
            cr_assert(hull->edge_faces[2 * e] != hull->edge_faces[2 * e + 1]);
        }
        sr_hull_destroy(hull);
    }
}
