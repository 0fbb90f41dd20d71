/* src/geom/frustum.c — view frustum planes from a view-projection matrix, and box/sphere
 * classification against them (culling). Part of geom: knows nothing of raster, bvh or scene. */
#include <softrast/geom.h>

#include <math.h>

/* Row `row` of a column-major matrix as a plane (x, y, z, w coefficients). */
static sr_vec4 matrix_row(const sr_mat4 *m, int row)
{
    return (sr_vec4){m->m[0 * 4 + row], m->m[1 * 4 + row], m->m[2 * 4 + row], m->m[3 * 4 + row]};
}

static sr_plane plane_from_coefficients(sr_vec4 p)
{
    return sr_plane_normalize((sr_plane){{p.x, p.y, p.z}, p.w});
}

sr_frustum sr_frustum_from_matrix(sr_mat4 view_projection)
{
    /* Gribb & Hartmann, "Fast Extraction of Viewing Frustum Planes from the World-View-Projection
     * Matrix" (2001): a point p is inside iff -w <= x <= w, -w <= y <= w and, with zero-to-one
     * depth (DESIGN.md), 0 <= z <= w, where (x, y, z, w) = M p = (row0.p, row1.p, row2.p,
     * row3.p). Each inequality is a plane; near is row2 alone (z >= 0), not row3 + row2. */
    const sr_vec4 row0 = matrix_row(&view_projection, 0);
    const sr_vec4 row1 = matrix_row(&view_projection, 1);
    const sr_vec4 row2 = matrix_row(&view_projection, 2);
    const sr_vec4 row3 = matrix_row(&view_projection, 3);
    sr_frustum frustum;
    frustum.planes[0] = plane_from_coefficients(sr_vec4_add(row3, row0)); /* left */
    frustum.planes[1] = plane_from_coefficients(sr_vec4_sub(row3, row0)); /* right */
    frustum.planes[2] = plane_from_coefficients(sr_vec4_add(row3, row1)); /* bottom */
    frustum.planes[3] = plane_from_coefficients(sr_vec4_sub(row3, row1)); /* top */
    frustum.planes[4] = plane_from_coefficients(row2);                    /* near */
    frustum.planes[5] = plane_from_coefficients(sr_vec4_sub(row3, row2)); /* far */
    return frustum;
}

sr_containment sr_frustum_test_aabb(const sr_frustum *frustum, const sr_aabb *box)
{
    if (sr_aabb_is_empty(*box))
        return SR_OUTSIDE;
    sr_containment result = SR_INSIDE;
    for (int i = 0; i < 6; i++) {
        const sr_plane plane = frustum->planes[i];
        /* p-vertex: the corner furthest along the normal; n-vertex: the opposite corner. Taking
         * the actual corners (not centre +/- extent) makes the answer that of testing the eight
         * corners one by one. Comparisons are written so that NaN counts as outside. */
        const sr_vec3 positive = {plane.normal.x >= 0.0f ? box->max.x : box->min.x,
                                  plane.normal.y >= 0.0f ? box->max.y : box->min.y,
                                  plane.normal.z >= 0.0f ? box->max.z : box->min.z};
        if (!(sr_plane_distance(plane, positive) >= 0.0f))
            return SR_OUTSIDE;
        const sr_vec3 negative = {plane.normal.x >= 0.0f ? box->min.x : box->max.x,
                                  plane.normal.y >= 0.0f ? box->min.y : box->max.y,
                                  plane.normal.z >= 0.0f ? box->min.z : box->max.z};
        if (!(sr_plane_distance(plane, negative) >= 0.0f))
            result = SR_INTERSECTING;
    }
    return result;
}

sr_containment sr_frustum_test_sphere(const sr_frustum *frustum, const sr_sphere *sphere)
{
    const float r = sphere->radius;
    if (!(r >= 0.0f))
        return SR_OUTSIDE;
    sr_containment result = SR_INSIDE;
    for (int i = 0; i < 6; i++) {
        const float distance = sr_plane_distance(frustum->planes[i], sphere->centre);
        if (!(distance >= -r)) /* also NaN */
            return SR_OUTSIDE;
        if (distance < r)
            result = SR_INTERSECTING;
    }
    return result;
}
