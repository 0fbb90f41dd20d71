/* src/raster/line.c — not written yet. */
typedef int sr_unwritten_line;
