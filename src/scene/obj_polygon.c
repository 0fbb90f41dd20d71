/* obj_polygon.c — triangulation of the polygons of OBJ faces (obj_internal.h): the fan for
 * convex and degenerate polygons, ear clipping for concave ones (LightWave and CAD exporters
 * write them), always n - 2 triangles for n corners so that the numbering of later triangles
 * does not depend on the shape. Knows nothing of files or statements. */
#include "obj_internal.h"

#include <math.h>

bool sr_obj_polygon_reserve(sr_obj_polygon *polygon, size_t corners)
{
    if (corners <= polygon->capacity)
        return true;
    size_t capacity = polygon->capacity ? polygon->capacity : 16;
    while (capacity < corners)
        capacity *= 2;
    /* each array grows on its own; `capacity` changes only once all four have */
    double *x = sr_realloc(polygon->x, capacity * sizeof *x);
    if (x)
        polygon->x = x;
    double *y = sr_realloc(polygon->y, capacity * sizeof *y);
    if (y)
        polygon->y = y;
    uint32_t *previous = sr_realloc(polygon->previous, capacity * sizeof *previous);
    if (previous)
        polygon->previous = previous;
    uint32_t *next = sr_realloc(polygon->next, capacity * sizeof *next);
    if (next)
        polygon->next = next;
    if (!x || !y || !previous || !next)
        return false;
    polygon->capacity = capacity;
    return true;
}

void sr_obj_polygon_free(sr_obj_polygon *polygon)
{
    sr_free(polygon->x);
    sr_free(polygon->y);
    sr_free(polygon->previous);
    sr_free(polygon->next);
    *polygon = (sr_obj_polygon){0};
}

static void fan(size_t count, uint32_t *triangles)
{
    for (size_t k = 1; k + 1 < count; k++) {
        *triangles++ = 0;
        *triangles++ = (uint32_t)k;
        *triangles++ = (uint32_t)(k + 1);
    }
}

/* Twice the signed area of the projected triangle (a, b, c): > 0 counter-clockwise. */
static double orient(const sr_obj_polygon *polygon, uint32_t a, uint32_t b, uint32_t c)
{
    const double *x = polygon->x, *y = polygon->y;
    return (x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a]);
}

/* Whether corner b, between a and c, is an ear: convex (strictly) and no other remaining corner
 * inside or on the triangle (a, b, c). Corners at the very position of a, b or c do not count:
 * polygons with holes joined to the outline by a bridge edge repeat positions. */
static bool is_ear(const sr_obj_polygon *polygon, uint32_t a, uint32_t b, uint32_t c)
{
    if (!(orient(polygon, a, b, c) > 0.0))
        return false;
    const double *x = polygon->x, *y = polygon->y;
    for (uint32_t j = polygon->next[c]; j != a; j = polygon->next[j]) {
        bool at_corner =
            (x[j] == x[a] && y[j] == y[a]) || (x[j] == x[b] && y[j] == y[b]) || (x[j] == x[c] && y[j] == y[c]);
        if (!at_corner && orient(polygon, a, b, j) >= 0.0 && orient(polygon, b, c, j) >= 0.0 &&
            orient(polygon, c, a, j) >= 0.0)
            return false;
    }
    return true;
}

bool sr_obj_triangulate(const sr_vec3 *points, size_t count, sr_obj_polygon *polygon, uint32_t *triangles)
{
    if (count == 3) {
        fan(count, triangles);
        return false;
    }
    /* Newell's normal (twice the vector area), relative to the first corner for precision */
    double normal[3] = {0.0, 0.0, 0.0};
    const sr_vec3 origin = points[0];
    for (size_t i = 0; i < count; i++) {
        const sr_vec3 *p = &points[i], *q = &points[i + 1 < count ? i + 1 : 0];
        double a[3] = {(double)p->x - origin.x, (double)p->y - origin.y, (double)p->z - origin.z};
        double b[3] = {(double)q->x - origin.x, (double)q->y - origin.y, (double)q->z - origin.z};
        normal[0] += (a[1] - b[1]) * (a[2] + b[2]);
        normal[1] += (a[2] - b[2]) * (a[0] + b[0]);
        normal[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    /* project onto the plane of the dominant axis, (y, z), (z, x) or (x, y), each counter-
     * clockwise when the normal's component is positive; flip v otherwise */
    int axis = fabs(normal[0]) > fabs(normal[1]) ? (fabs(normal[0]) > fabs(normal[2]) ? 0 : 2)
                                                 : (fabs(normal[1]) > fabs(normal[2]) ? 1 : 2);
    double largest = fabs(normal[axis]);
    if (!(largest > 0.0) || !isfinite(largest)) {
        fan(count, triangles); /* degenerate: no plane to work in */
        return false;
    }
    int u_axis = (axis + 1) % 3, v_axis = (axis + 2) % 3;
    double flip = normal[axis] > 0.0 ? 1.0 : -1.0;
    for (size_t i = 0; i < count; i++) {
        const float *p = &points[i].x;
        polygon->x[i] = (double)p[u_axis] - (&origin.x)[u_axis];
        polygon->y[i] = flip * ((double)p[v_axis] - (&origin.x)[v_axis]);
        polygon->previous[i] = (uint32_t)(i ? i - 1 : count - 1);
        polygon->next[i] = (uint32_t)(i + 1 < count ? i + 1 : 0);
    }
    bool convex = true;
    for (uint32_t i = 0; i < count && convex; i++)
        convex = orient(polygon, polygon->previous[i], i, polygon->next[i]) >= 0.0;
    if (convex) {
        fan(count, triangles);
        return false;
    }
    /* Ear clipping (Meisters' two-ears theorem: a simple polygon always has an ear). A polygon
     * that is not simple in projection may run out of ears: the rest is then a fan. */
    size_t remaining = count, misses = 0;
    uint32_t i = 0;
    while (remaining > 3) {
        uint32_t a = polygon->previous[i], c = polygon->next[i];
        if (is_ear(polygon, a, i, c)) {
            *triangles++ = a;
            *triangles++ = i;
            *triangles++ = c;
            polygon->next[a] = c;
            polygon->previous[c] = a;
            remaining--;
            misses = 0;
            i = c;
        } else {
            i = c;
            if (++misses >= remaining)
                break;
        }
    }
    uint32_t first = remaining > 3 ? i : polygon->previous[i];
    for (uint32_t v = polygon->next[first]; polygon->next[v] != first; v = polygon->next[v]) {
        *triangles++ = first;
        *triangles++ = v;
        *triangles++ = polygon->next[v];
    }
    return true;
}
