/* shaders/textured.c — not written yet. */
typedef int sr_unwritten_textured;
