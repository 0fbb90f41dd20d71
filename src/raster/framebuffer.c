/* src/raster/framebuffer.c — not written yet. */
typedef int sr_unwritten_framebuffer;
