/* src/bvh/bvh_dynamic.c — not written yet. */
typedef int sr_unwritten_bvh_dynamic;
