/* src/scene/mesh.c — not written yet. */
typedef int sr_unwritten_mesh;
