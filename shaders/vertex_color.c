/* shaders/vertex_color.c — not written yet. */
typedef int sr_unwritten_vertex_color;
