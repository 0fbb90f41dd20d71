/* src/scene/mesh_gen.c — not written yet. */
typedef int sr_unwritten_mesh_gen;
