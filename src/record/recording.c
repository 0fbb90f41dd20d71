/* src/record/recording.c — sr_recording: reading a recording back (softrast/record.h). Skeleton:
 * the API builds and fails cleanly until the reader lands. */
#include <softrast/record.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

bool sr_recording_probe(const char *path)
{
    FILE *file = path ? fopen(path, "rb") : NULL;
    if (!file)
        return false;
    char magic[SR_RECORD_MAGIC_SIZE];
    bool same = fread(magic, 1, sizeof magic, file) == sizeof magic && memcmp(magic, SR_RECORD_MAGIC, sizeof magic) == 0;
    fclose(file);
    return same;
}

sr_status sr_recording_open(const char *path, const sr_recording_desc *desc, sr_recording **out, sr_error *err)
{
    (void)desc;
    if (out)
        *out = NULL;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: sr_recording_open: not implemented yet", path ? path : "(null)");
}

void sr_recording_destroy(sr_recording *rec)
{
    (void)rec;
}

const sr_recording_info *sr_recording_get_info(const sr_recording *rec)
{
    (void)rec;
    return NULL;
}

double sr_recording_frame_time(const sr_recording *rec, uint64_t frame)
{
    (void)rec, (void)frame;
    return NAN;
}

uint64_t sr_recording_frame_at_time(const sr_recording *rec, double time)
{
    (void)rec, (void)time;
    return 0;
}

bool sr_recording_frame_is_keyframe(const sr_recording *rec, uint64_t frame)
{
    (void)rec, (void)frame;
    return false;
}

const sr_recording_message *sr_recording_messages(const sr_recording *rec, size_t *count)
{
    (void)rec;
    if (count)
        *count = 0;
    return NULL;
}

sr_status sr_recording_seek(sr_recording *rec, uint64_t frame, sr_recording_frame *out, sr_error *err)
{
    (void)rec, (void)frame, (void)out;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recording_seek: not implemented yet");
}

const sr_recording_frame *sr_recording_current(const sr_recording *rec)
{
    (void)rec;
    return NULL;
}

sr_node_id sr_recording_source_node(const sr_recording *rec, sr_node_id node)
{
    (void)rec, (void)node;
    return SR_NODE_NULL;
}

sr_node_id sr_recording_node_of_source(const sr_recording *rec, sr_node_id source)
{
    (void)rec, (void)source;
    return SR_NODE_NULL;
}

sr_recording_cache_stats sr_recording_get_cache_stats(const sr_recording *rec)
{
    (void)rec;
    return (sr_recording_cache_stats){0};
}

sr_status sr_recording_render(sr_recording *rec, sr_renderer *renderer, sr_framebuffer *fb,
                              const sr_recording_render_desc *desc, sr_error *err)
{
    (void)rec, (void)renderer, (void)fb, (void)desc;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recording_render: not implemented yet");
}

sr_aabb sr_recording_frame_bounds(const sr_recording *rec)
{
    (void)rec;
    return sr_aabb_empty();
}

sr_status sr_recording_fit_camera(sr_recording *rec, uint64_t first, uint64_t last, float aspect, sr_camera *camera,
                                  sr_error *err)
{
    (void)rec, (void)first, (void)last, (void)aspect, (void)camera;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recording_fit_camera: not implemented yet");
}

sr_status sr_recording_pick_item(const sr_recording *rec, const sr_camera *camera, int width, int height, float x,
                                 float y, float radius_px, const bool *lists_shown, sr_recording_item_pick *out,
                                 sr_error *err)
{
    (void)rec, (void)camera, (void)width, (void)height, (void)x, (void)y, (void)radius_px, (void)lists_shown;
    if (out)
        *out = (sr_recording_item_pick){0};
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recording_pick_item: not implemented yet");
}

bool sr_recording_find_item(const sr_recording *rec, const sr_recording_item_pick *previous,
                            sr_recording_item_pick *out)
{
    (void)rec, (void)previous, (void)out;
    return false;
}

sr_status sr_recording_check(const char *path, const sr_recording_desc *desc, sr_recording_check_report *report,
                             sr_error *err)
{
    (void)desc, (void)report;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: sr_recording_check: not implemented yet", path ? path : "(null)");
}
