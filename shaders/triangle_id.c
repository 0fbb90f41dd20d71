/* shaders/triangle_id.c — not written yet. */
typedef int sr_unwritten_triangle_id;
