/* shaders/shaders.c — not written yet. */
typedef int sr_unwritten_shaders;
