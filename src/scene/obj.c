/* src/scene/obj.c — not written yet. */
typedef int sr_unwritten_obj;
