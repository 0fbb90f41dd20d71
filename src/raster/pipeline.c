/* src/raster/pipeline.c — not written yet. */
typedef int sr_unwritten_pipeline;
