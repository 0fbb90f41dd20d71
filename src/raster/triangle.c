/* src/raster/triangle.c — not written yet. */
typedef int sr_unwritten_triangle;
