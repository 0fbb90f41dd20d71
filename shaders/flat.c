/* shaders/flat.c — not written yet. */
typedef int sr_unwritten_flat;
