/* shaders/normals.c — not written yet. */
typedef int sr_unwritten_normals;
