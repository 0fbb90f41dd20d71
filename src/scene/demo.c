/* src/scene/demo.c — not written yet. */
typedef int sr_unwritten_demo;
