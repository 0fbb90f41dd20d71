/* softrast/geom.h — rays, boxes, spheres, planes, OBBs, frustums and their intersection tests.
 * The geometry every query of softrast (picking, culling, BVH traversal) stands on.
 * Knows nothing of raster, bvh or scene. All functions are pure and thread-safe.
 *
 * sr_ray_aabb and sr_ray_triangle(_culled) are defined `static inline` at the end of this header
 * (not in src/geom/intersect.c) on purpose: the BVH calls them in its innermost loops, and the
 * modules are separate static libraries built without link-time optimisation, so only a
 * definition visible at the call site can be inlined. Everything else lives in src/geom/.
 *
 * Boundary rules (the BVH and every other caller rely on them):
 *  - Boxes are closed: a ray that touches a face, edge or corner, or lies in a face's plane
 *    (direction component 0, origin exactly on the face), hits.
 *  - Triangles are closed: a ray through an edge or a vertex hits every triangle that has it, up
 *    to exact arithmetic on the vertices in ray space (see sr_ray_triangle), so a closed mesh
 *    never lets a ray through.
 *  - t ranges are closed: a hit at exactly t = tmin or t = tmax counts. */
#ifndef SOFTRAST_GEOM_H
#define SOFTRAST_GEOM_H

#include <softrast/core.h>
#include <softrast/math.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A ray origin + t * direction for t in [tmin, tmax]. `inv_direction` is 1 / direction per
/// component, +/-infinity for (+/-)0 components: the slab test relies on IEEE infinities.
/// Build it with sr_ray_make so that all fields stay consistent; a hand-written ray must fill
/// every field as sr_ray_make does.
typedef struct sr_ray {
    sr_vec3 origin;
    sr_vec3 direction; ///< need not be unit length: t is in units of |direction|
    sr_vec3 inv_direction;
    float tmin, tmax;
    /// Ray space of the watertight triangle test (Woop, Benthin & Wald, JCGT 2013), filled by
    /// sr_ray_make: axis_z is the axis of the largest |direction| component, axis_x and axis_y
    /// the two others, swapped when direction[axis_z] < 0 so the winding of triangles is kept.
    int axis_x, axis_y, axis_z;
    /// (d[axis_x] / d[axis_z], d[axis_y] / d[axis_z], 1 / d[axis_z]) with d = direction: the
    /// shear that maps the direction to (0, 0, 1).
    sr_vec3 shear;
} sr_ray;

/// Axis-aligned box. Empty boxes have min > max (sr_aabb_empty: +inf / -inf); a box with a NaN
/// bound counts as empty for sr_aabb_is_empty, and must not be given to sr_ray_aabb.
typedef struct sr_aabb {
    sr_vec3 min, max;
} sr_aabb;

typedef struct sr_sphere {
    sr_vec3 centre;
    float radius;
} sr_sphere;

/// Plane dot(normal, p) + d = 0; the positive side (dot + d > 0) is "inside" for frustums.
typedef struct sr_plane {
    sr_vec3 normal;
    float d;
} sr_plane;

/// Oriented box: centre, three orthonormal axes and half extents along them.
typedef struct sr_obb {
    sr_vec3 centre;
    sr_vec3 axes[3];
    sr_vec3 half_extents;
} sr_obb;

/// Six planes with normals pointing inwards, normalised: left, right, bottom, top, near, far.
typedef struct sr_frustum {
    sr_plane planes[6];
} sr_frustum;

typedef enum sr_containment {
    SR_OUTSIDE = 0,
    SR_INTERSECTING,
    SR_INSIDE,
} sr_containment;

/// Result of a ray/triangle test: distance along the ray, barycentric weights u of the second
/// and v of the third vertex (the first has 1 - u - v).
typedef struct sr_triangle_hit {
    float t, u, v;
} sr_triangle_hit;

/* ---- rays ---- */

/// Builds a ray: inv_direction = 1 / direction with IEEE semantics (1 / +0 = +inf, 1 / -0 = -inf,
/// never a large constant) and the ray space of the triangle test. A direction component so
/// small that 1 / d overflows to infinity (|d| < ~2.9e-39, subnormal) is stored as a zero of the
/// same sign, so that direction and inv_direction describe the same ray for every test (the
/// ray moves by less than 3e-39 per unit of t). A ray with a non-finite (NaN or infinite)
/// origin or direction component, or a NaN tmin/tmax, is returned poisoned: tmin = tmax = NaN,
/// so that every query misses it. A zero direction is kept: such a "ray" is the point
/// `origin`; sr_ray_aabb then reports whether the box contains it, triangles miss.
sr_ray sr_ray_make(sr_vec3 origin, sr_vec3 direction, float tmin, float tmax);
/// origin + t * direction.
static inline sr_vec3 sr_ray_at(const sr_ray *ray, float t)
{
    return sr_vec3_add(ray->origin, sr_vec3_scale(ray->direction, t));
}

/* ---- boxes ---- */
sr_aabb sr_aabb_empty(void);                       ///< min = +inf, max = -inf: the identity of merge
bool sr_aabb_is_empty(sr_aabb box);                ///< min > max on some axis, or a NaN bound
sr_aabb sr_aabb_merge(sr_aabb a, sr_aabb b);       ///< smallest box holding both (empty boxes ignored)
sr_aabb sr_aabb_grow(sr_aabb box, sr_vec3 point);  ///< NaN coordinates of `point` are ignored
sr_aabb sr_aabb_expand(sr_aabb box, float margin); ///< every side moved out by margin
float sr_aabb_surface_area(sr_aabb box);           ///< 0 for empty boxes
sr_vec3 sr_aabb_centre(sr_aabb box);               ///< (min + max) / 2; NaN for empty boxes
sr_vec3 sr_aabb_extent(sr_aabb box);               ///< max - min (negative for empty boxes)
bool sr_aabb_overlaps(sr_aabb a, sr_aabb b);       ///< closed boxes: touching counts
/// Closed: `inner` may touch the sides of `outer`. The empty box is contained in every box.
bool sr_aabb_contains(sr_aabb outer, sr_aabb inner);
bool sr_aabb_contains_point(sr_aabb box, sr_vec3 point); ///< closed: points on faces count
/// Box of the transformed box's 8 corners (Arvo's method), exact for affine matrices (the last
/// row of `matrix` is ignored). The empty box stays empty.
sr_aabb sr_aabb_transform(sr_aabb box, sr_mat4 matrix);
/// Closed: a sphere touching the box overlaps it. False for empty boxes and negative radii.
bool sr_aabb_sphere_overlap(sr_aabb box, sr_sphere sphere);

/* ---- oriented boxes ---- */
/// The oriented box that `matrix` maps `box` to. `matrix` must be affine without shear
/// (rotation, translation, per-axis scale): its columns are normalised into the axes and their
/// lengths scale the half extents. Axes of zero length become the world axis of that column.
sr_obb sr_obb_from_aabb(sr_aabb box, sr_mat4 matrix);
/// Smallest axis-aligned box holding the oriented box.
sr_aabb sr_obb_bounds(const sr_obb *box);
/// Closed: points on the faces count.
bool sr_obb_contains_point(const sr_obb *box, sr_vec3 point);

/* ---- planes ---- */
sr_plane sr_plane_from_point_normal(sr_vec3 point, sr_vec3 normal);
/// Scales normal and d by 1 / |normal|; a plane with a zero or non-finite normal length is
/// returned unchanged.
sr_plane sr_plane_normalize(sr_plane plane);
float sr_plane_distance(sr_plane plane, sr_vec3 point); ///< signed, in units of |normal|

/* ---- ray queries: true on a hit within [ray.tmin, ray.tmax]; outputs written only on a hit,
 *      and output pointers may be NULL ---- */

/// Williams et al. slab test ("An efficient and robust ray-box intersection algorithm", 2005),
/// branch-free on IEEE infinities; writes the entry and exit distances clipped to
/// [tmin, tmax]. Closed box: origins inside or on a face, rays lying in a face's plane and rays
/// grazing an edge hit. The exit distance is widened by SR_RAY_AABB_FAR_SCALE so that rounding
/// never makes a grazing ray miss (Ize, "Robust BVH Ray Traversal", JCGT 2013): a ray missing a
/// box by less than ~5e-7 of its distance may be reported as a hit, never the reverse. (The
/// widening covers the comparisons between axes and with tmin; tmax is used as given, so a box
/// entered exactly at t = tmax may be missed by rounding.) An entry at +inf is no hit. The box
/// must not hold NaN; an empty box never hits. Callers that re-implement the test in a loop
/// (e.g. with origin * inv_direction precomputed) must keep its rules to agree with it: near
/// and far faces picked by the sign of inv_direction, NaN slab distances dropped by
/// `x > acc ? x : acc` / `x < acc ? x : acc` with tmin/tmax in acc, sr_ray_aabb_widen_far on
/// the exit of the three axes before clipping with tmax, and the final test below.
static inline bool sr_ray_aabb(const sr_ray *ray, const sr_aabb *box, float *t_near, float *t_far);
/// Ray/triangle test giving Möller–Trumbore's t, u, v, two-sided. The three edge functions
/// (Möller–Trumbore's scaled barycentrics) are evaluated in the ray space of Woop, Benthin &
/// Wald ("Watertight Ray/Triangle Intersection", JCGT 2013) where they are 2x2 determinants of
/// per-vertex coordinates, computed in double so their signs are exact: the same edge gives
/// the same value with opposite signs in the two triangles sharing it. Watertight: a ray
/// through an edge or vertex shared by triangles of a closed mesh hits at least one of them,
/// whatever the compiler's FMA contraction. Edges and vertices count as inside (closed).
/// Triangles of zero area in ray space (two equal vertices, or collinear ones whose rounding
/// keeps them collinear) never hit; vertices collinear only in exact arithmetic round to a
/// sliver of rounding width that a ray passing within rounding distance can hit (it must, for
/// a T-junction sliver in a closed mesh to stay watertight). Zero directions, NaN anywhere and
/// infinite t never hit. Costs about 1.3-1.4x plain float Möller–Trumbore, which is not
/// watertight (measured: thousands of misses out of 30,000 rays through shared edges).
static inline bool sr_ray_triangle(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit);
/// The same test for front faces only: counter-clockwise a, b, c seen from the ray origin,
/// i.e. dot((b - a) x (c - a), direction) < 0. Rays grazing an edge-on triangle miss.
static inline bool sr_ray_triangle_culled(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit);
/// Closest intersection with the sphere's surface in [tmin, tmax] (an origin inside gives the
/// exit point). Numerically stable quadratic (Haines et al., Ray Tracing Gems ch. 7).
/// Negative or NaN radii never hit.
bool sr_ray_sphere(const sr_ray *ray, const sr_sphere *sphere, float *t);
/// Two-sided; a ray parallel to the plane (including one lying in it) misses.
bool sr_ray_plane(const sr_ray *ray, const sr_plane *plane, float *t);
/// The ray moved into the box frame and sr_ray_aabb there (same closed-box rules); t is in
/// units of the ray's direction as for every test.
bool sr_ray_obb(const sr_ray *ray, const sr_obb *box, float *t_near, float *t_far);

/* ---- frustums ---- */
/// Frustum of a world-to-clip matrix with zero-to-one depth (Gribb & Hartmann extraction).
/// Planes are normalised; a degenerate plane (zero normal) is kept unnormalised.
sr_frustum sr_frustum_from_matrix(sr_mat4 view_projection);
/// Conservative box test (p-/n-vertex): SR_OUTSIDE if the box is wholly on the negative side of
/// one plane, SR_INSIDE if it is on the non-negative side of all six (corners on a plane count
/// as inside), else SR_INTERSECTING. Boxes outside near a frustum edge may be INTERSECTING.
/// Empty boxes are SR_OUTSIDE.
sr_containment sr_frustum_test_aabb(const sr_frustum *frustum, const sr_aabb *box);
/// SR_OUTSIDE if the centre is further than radius behind one plane, SR_INSIDE if it is at
/// least radius in front of all six, else SR_INTERSECTING. Negative or NaN radii are SR_OUTSIDE.
sr_containment sr_frustum_test_sphere(const sr_frustum *frustum, const sr_sphere *sphere);

/* ------------------------------------------------------------------------------------------ */
/* Hot-path definitions (see the file comment for why they are here).                          */

/// Factors that widen a computed slab exit distance t so that it is never below the exact exit
/// distance of any axis, whatever the rounding. Each slab distance (b - o) * (1 / d) carries
/// three roundings, relative error <= gamma(3) = 3u / (1 - 3u), u = 2^-24; comparing an entry
/// and an exit distance therefore needs the exit widened by (1 + gamma(3)) / (1 - gamma(3))
/// ~ 1 + 2 gamma(3) (Ize 2013; pbrt's "tMax *= 1 + 2 * gamma(3)"), plus one rounding u of this
/// multiplication: 1 + 7u at least. The float just above, 1 + 8u = 1 + 2^-21, is used; for a
/// negative exit (box behind the origin, tmin < 0) the widening is a shrink of the magnitude.
#define SR_RAY_AABB_FAR_SCALE (1.0f + 0x1p-21f)
#define SR_RAY_AABB_FAR_SCALE_NEGATIVE (1.0f - 0x1p-21f)

/// The widened exit distance (see SR_RAY_AABB_FAR_SCALE); keeps +/-inf.
static inline float sr_ray_aabb_widen_far(float t_far)
{
    return t_far * (t_far >= 0.0f ? SR_RAY_AABB_FAR_SCALE : SR_RAY_AABB_FAR_SCALE_NEGATIVE);
}

static inline bool sr_ray_aabb(const sr_ray *ray, const sr_aabb *box, float *t_near, float *t_far)
{
    const sr_vec3 o = ray->origin, inv = ray->inv_direction;
    /* Williams et al.: the sign of 1/d picks which face is entered first, so no per-axis min/max
     * is needed; -0 components give -inf and pick like negative ones. */
    const bool neg_x = inv.x < 0.0f, neg_y = inv.y < 0.0f, neg_z = inv.z < 0.0f;
    const float near_x = ((neg_x ? box->max.x : box->min.x) - o.x) * inv.x;
    const float far_x = ((neg_x ? box->min.x : box->max.x) - o.x) * inv.x;
    const float near_y = ((neg_y ? box->max.y : box->min.y) - o.y) * inv.y;
    const float far_y = ((neg_y ? box->min.y : box->max.y) - o.y) * inv.y;
    const float near_z = ((neg_z ? box->max.z : box->min.z) - o.z) * inv.z;
    const float far_z = ((neg_z ? box->min.z : box->max.z) - o.z) * inv.z;
    /* A slab distance is NaN only as 0 * inf: a zero direction component with the origin
     * exactly on that face's plane. The ray then lies in the plane of the (closed) slab, which
     * constrains nothing, so the NaN must be dropped. `x > acc ? x : acc` (and `x < acc`)
     * returns acc whenever x is NaN (it is also the maxss/minss operand order), while a NaN
     * tmin/tmax in acc propagates to a miss. */
    float enter = ray->tmin;
    enter = near_x > enter ? near_x : enter;
    enter = near_y > enter ? near_y : enter;
    enter = near_z > enter ? near_z : enter;
    float leave = INFINITY;
    leave = far_x < leave ? far_x : leave;
    leave = far_y < leave ? far_y : leave;
    leave = far_z < leave ? far_z : leave;
    leave = sr_ray_aabb_widen_far(leave);
    leave = leave < ray->tmax ? leave : ray->tmax;
    /* An entry at +inf (or an exit at -inf) is no hit: it comes from a zero (or reciprocal-
     * overflowing) direction component with the origin outside that slab, which must not meet
     * an infinite tmax (or tmin) in the closed comparison. */
    /* The widened exit would let a box inverted by less than the widening be hit: an empty box
     * (min > max on any axis, or NaN bounds) is refused explicitly. */
    if (!(enter <= leave && enter < INFINITY && leave > -INFINITY) ||
        !(box->min.x <= box->max.x && box->min.y <= box->max.y && box->min.z <= box->max.z))
        return false;
    if (t_near)
        *t_near = enter;
    if (t_far)
        *t_far = leave;
    return true;
}

/// Vertex `p` in the ray space of `ray`: x and y sheared so that the ray is the z axis; z is
/// the unsheared, permuted distance along axis_z (times shear.z it is the ray parameter t).
/// Depends only on the vertex and the ray, so a vertex shared by several triangles gets the
/// same bits in all of them: the root of watertightness. (A compiler that fuses
/// `relative - shear * z` into an FMA does so alike in the three inlined copies; the tests pass
/// under -ffp-contract=fast with gcc and clang. Computing it in double would rule even that
/// out but costs ~17%.) (Internal to sr_ray_triangle.)
static inline sr_vec3 sr_ray_space_point(const sr_ray *ray, sr_vec3 p)
{
    const float relative[3] = {p.x - ray->origin.x, p.y - ray->origin.y, p.z - ray->origin.z};
    const float z = relative[ray->axis_z];
    return sr_vec3_make(relative[ray->axis_x] - ray->shear.x * z, relative[ray->axis_y] - ray->shear.y * z, z);
}

/// 2D edge function p x q = p.x q.y - p.y q.x of ray-space points, in double: the products of
/// two floats are exact in double, so the one rounding of the difference keeps the exact sign
/// (never a wrong sign, zero only when exactly zero) and swapping p and q negates the result
/// bit for bit, even if the compiler fuses a product into an FMA (this header is compiled with
/// the includer's flags). Float arithmetic would need Woop's double fallback for zero results
/// and would break under FMA contraction. (Internal.)
static inline double sr_ray_space_edge(sr_vec3 p, sr_vec3 q)
{
    return (double)p.x * (double)q.y - (double)p.y * (double)q.x;
}

/// Shared body of the two triangle tests; `cull` is a constant at every call site. (Internal.)
static inline bool sr_ray_triangle_test(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, bool cull,
                                        sr_triangle_hit *hit)
{
    const sr_vec3 pa = sr_ray_space_point(ray, a);
    const sr_vec3 pb = sr_ray_space_point(ray, b);
    const sr_vec3 pc = sr_ray_space_point(ray, c);
    /* w_a weights vertex a (edge b -> c), w_b vertex b (c -> a), w_c vertex c (a -> b): the
     * Möller–Trumbore determinant is w_a + w_b + w_c, u = w_b / det, v = w_c / det. The operand
     * order makes all three >= 0 for front faces (ray space keeps the handedness, see sr_ray). */
    const double w_a = sr_ray_space_edge(pc, pb);
    const double w_b = sr_ray_space_edge(pa, pc);
    const double w_c = sr_ray_space_edge(pb, pa);
    /* Closed triangle: zero edge values (ray through an edge or vertex) are inside. Written so
     * that NaN fails. */
    const bool all_nonnegative = w_a >= 0.0 && w_b >= 0.0 && w_c >= 0.0;
    const bool all_nonpositive = w_a <= 0.0 && w_b <= 0.0 && w_c <= 0.0;
    if (!(all_nonnegative || (!cull && all_nonpositive)))
        return false;
    const double det = w_a + w_b + w_c;
    if (det == 0.0) /* zero area in ray space: edge-on or degenerate triangle */
        return false;
    /* t is the barycentric average of the vertices' ray-space depths (Woop et al.); the shear of
     * z is applied once here instead of per vertex. */
    const double inv_det = 1.0 / det;
    const float t = (float)((w_a * pa.z + w_b * pb.z + w_c * pc.z) * inv_det * ray->shear.z);
    if (!(t >= ray->tmin && t <= ray->tmax && fabsf(t) < INFINITY))
        return false;
    if (hit) {
        hit->t = t;
        hit->u = (float)(w_b * inv_det);
        hit->v = (float)(w_c * inv_det);
    }
    return true;
}

static inline bool sr_ray_triangle(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit)
{
    return sr_ray_triangle_test(ray, a, b, c, false, hit);
}

static inline bool sr_ray_triangle_culled(const sr_ray *ray, sr_vec3 a, sr_vec3 b, sr_vec3 c, sr_triangle_hit *hit)
{
    return sr_ray_triangle_test(ray, a, b, c, true, hit);
}

#ifdef __cplusplus
}
#endif
#endif
