/* shaders/blinn_phong.c — not written yet. */
typedef int sr_unwritten_blinn_phong;
