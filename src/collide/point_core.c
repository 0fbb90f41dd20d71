/* src/collide/point_core.c — the signed distance from a point to a box, cylinder or cone core in
 * closed form, with the nearest point of the core's boundary and the core's outward normal there:
 * what a sphere (a point core) against one of them needs without GJK or EPA. Exact up to rounding:
 * computed in the core's frame, where a box is three intervals, and a cylinder or cone is its
 * axial half-plane (the distance to the axis, the height), in which a cylinder is a rectangle and
 * a cone the triangle (0, -h), (r, -h), (0, h). Knows nothing of raster, scene or SDL. */
#include "collide_internal.h"

/* +1 or -1 (+1 for +0 and -0: the positive side wins ties, as the support points do). */
static double side_of(double x)
{
    return x < 0 ? -1 : 1;
}

/* The length of a nonzero offset and its direction, without underflow or overflow in the squares
 * (offsets of 1e-200 and 1e30 both occur among valid shapes). */
static double unit_of(sr_dvec3 offset, sr_dvec3 *unit)
{
    double largest = dmax_abs(offset);
    sr_dvec3 v = dscale(offset, 1.0 / largest);
    double length = dlength(v);
    *unit = dscale(v, 1.0 / length);
    return largest * length;
}

/* A box of half extents h: outside, the excess over each face (its vertex, edge and face regions
 * at once); inside, the nearest face (ties to the lower axis). */
static double point_box(sr_dvec3 h, sr_dvec3 q, sr_dvec3 *normal)
{
    double e[3] = {fabs(q.x) - h.x, fabs(q.y) - h.y, fabs(q.z) - h.z};
    double s[3] = {side_of(q.x), side_of(q.y), side_of(q.z)};
    if (e[0] > 0 || e[1] > 0 || e[2] > 0) {
        sr_dvec3 o = dv(e[0] > 0 ? s[0] * e[0] : 0, e[1] > 0 ? s[1] * e[1] : 0, e[2] > 0 ? s[2] * e[2] : 0);
        return unit_of(o, normal);
    }
    int k = 0;
    if (e[1] > e[k])
        k = 1;
    if (e[2] > e[k])
        k = 2;
    *normal = dv(k == 0 ? s[0] : 0, k == 1 ? s[1] : 0, k == 2 ? s[2] : 0);
    return e[k];
}

/* The axial half-plane of a local point: rho, its distance to the z axis, and the unit radial
 * direction ((1, 0, 0) on the axis, where every direction is radial). */
static double radial_of(sr_dvec3 q, sr_dvec3 *radial)
{
    double rho = sqrt(q.x * q.x + q.y * q.y);
    *radial = rho > 0 ? dv(q.x / rho, q.y / rho, 0) : dv(1, 0, 0);
    return rho;
}

/* A 2-D offset (along the radial direction, along z) as a local unit normal, and its length. */
static double offset_normal(double along_radial, double along_z, sr_dvec3 radial, sr_dvec3 *normal)
{
    sr_dvec3 planar;
    double d = unit_of(dv(along_radial, 0, along_z), &planar);
    *normal = dv(radial.x * planar.x, radial.y * planar.x, planar.z);
    return d;
}

/* A cylinder (a disc when h is 0, a segment when r is 0): outside, the excess over the side and
 * over the caps; inside, the nearer of the side and a cap (the side on ties, as point_in_axial
 * always did). */
static double point_cylinder(double r, double h, sr_dvec3 q, sr_dvec3 *normal)
{
    sr_dvec3 radial;
    double rho = radial_of(q, &radial);
    double side = rho - r, cap = fabs(q.z) - h;
    if (side > 0 || cap > 0)
        return offset_normal(side > 0 ? side : 0, cap > 0 ? side_of(q.z) * cap : 0, radial, normal);
    if (cap > side) {
        *normal = dv(0, 0, side_of(q.z));
        return cap;
    }
    *normal = radial;
    return side;
}

/* A cone of height 2h > 0 with its apex at z = h: the triangle (0, -h), (r, -h), (0, h) of the
 * half-plane. Outside: the apex's or the rim's region (Ericson 5.1.5's vertex regions, with the
 * directions along the slanted side), else the slanted side or the base, whichever the point is
 * farther outside of (a convex polygon lies inside each side's half-plane, so the distance is at
 * least each signed distance, and equal to the one of the side it projects onto). The third side,
 * the axis, is inside the solid of revolution and never nearest for a point off it. */
static double point_cone(double r, double h, sr_dvec3 q, sr_dvec3 *normal)
{
    sr_dvec3 radial;
    double rho = radial_of(q, &radial);
    double length = sqrt(r * r + 4 * h * h);
    double ux = r / length, uz = -2 * h / length; /* down the slanted side, from the apex */
    double apex_z = q.z - h;
    if (rho * ux + apex_z * uz <= 0 && (rho > 0 || apex_z > 0))
        return offset_normal(rho, apex_z, radial, normal);
    double rim_r = rho - r, rim_z = q.z + h;
    if (rim_r >= 0 && rim_r * ux + rim_z * uz >= 0 && (rim_r > 0 || rim_z < 0))
        return offset_normal(rim_r, rim_z, radial, normal);
    double k = r / (2 * h), across = sqrt(1 + k * k);
    double slant = (rho - k * (h - q.z)) / across, base = -h - q.z;
    /* inside (both at most 0): the nearer side, the slanted one on ties; outside: the larger */
    if (slant >= base) {
        *normal = dscale(dadd(radial, dv(0, 0, k)), 1.0 / across);
        return slant;
    }
    *normal = dv(0, 0, -1);
    return base;
}

bool sr_point_core_distance(const sr_placed *solid, sr_dvec3 point, sr_point_core *out)
{
    if (solid->core != CORE_BOX && solid->core != CORE_CYLINDER && solid->core != CORE_CONE)
        return false;
    sr_dvec3 offset = dsub(point, solid->position);
    sr_dvec3 q = solid->rotated ? placed_to_local(solid, offset) : offset;
    double r = solid->core_radius, h = solid->half_height;
    sr_dvec3 normal;
    double d;
    if (solid->core == CORE_BOX)
        d = point_box(solid->half_extents, q, &normal);
    else if (solid->core == CORE_CYLINDER || !(h > 0)) /* a cone of height 0 is its base, a disc */
        d = point_cylinder(r, h, q, &normal);
    else
        d = point_cone(r, h, q, &normal);
    out->distance = d;
    out->normal = solid->rotated ? placed_to_world(solid, normal) : normal;
    out->boundary = dmadd(point, -d, out->normal);
    return true;
}
