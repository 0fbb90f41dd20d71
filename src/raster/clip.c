/* src/raster/clip.c — not written yet. */
typedef int sr_unwritten_clip;
