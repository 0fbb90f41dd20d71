/* src/geom/intersect.c — not written yet. */
typedef int sr_unwritten_intersect;
