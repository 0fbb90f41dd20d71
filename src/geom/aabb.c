/* src/geom/aabb.c — not written yet. */
typedef int sr_unwritten_aabb;
