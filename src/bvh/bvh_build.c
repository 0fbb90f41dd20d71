/* src/bvh/bvh_build.c — not written yet. */
typedef int sr_unwritten_bvh_build;
