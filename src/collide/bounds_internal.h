/* src/collide/bounds_internal.h — what the bounding volumes of shapes (bounds.c) share with those
 * of point sets (bounds_points.c, bounds_obb.c). Private to src/collide. */
#ifndef SR_COLLIDE_BOUNDS_INTERNAL_H
#define SR_COLLIDE_BOUNDS_INTERNAL_H

#include <softrast/collide.h>

/// SR_OK when `out` is not NULL, count >= 1 and every coordinate is finite; otherwise
/// SR_ERROR_INVALID_ARGUMENT naming `function` and the first bad point.
sr_status sr_bounds_check_points(const char *function, const sr_dvec3 *points, size_t count, const void *out,
                                 sr_error *err);

/// Welzl's minimal enclosing sphere of points[0 .. count) (count >= 1, finite), with `links`
/// scratch space of 2 * count entries (the move-to-front list). Deterministic.
sr_dsphere sr_bounds_welzl(const sr_dvec3 *points, size_t count, uint32_t *links);

/// The same, allocating its scratch space when count is large. SR_ERROR_OUT_OF_MEMORY (naming
/// `function`) when that fails.
sr_status sr_bounds_sphere(const char *function, const sr_dvec3 *points, size_t count, sr_dsphere *out, sr_error *err);

/// The tight oriented box of a hull's vertices in its local frame (bounds_obb.c).
sr_status sr_bounds_obb_of_hull(const sr_hull *hull, sr_dobb *out, sr_error *err);

#endif
