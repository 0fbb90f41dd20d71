/* src/raster/image.c — not written yet. */
typedef int sr_unwritten_image;
