/* shaders/depth.c — not written yet. */
typedef int sr_unwritten_depth;
