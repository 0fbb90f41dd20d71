/* shaders/lambert.c — not written yet. */
typedef int sr_unwritten_lambert;
