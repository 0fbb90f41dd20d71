/* src/bvh/bvh_query.c — not written yet. */
typedef int sr_unwritten_bvh_query;
