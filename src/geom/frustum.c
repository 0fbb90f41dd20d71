/* src/geom/frustum.c — not written yet. */
typedef int sr_unwritten_frustum;
