/* shaders/wireframe.c — not written yet. */
typedef int sr_unwritten_wireframe;
