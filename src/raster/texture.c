/* src/raster/texture.c — not written yet. */
typedef int sr_unwritten_texture;
