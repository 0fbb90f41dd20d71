/* src/record/recorder.c — sr_recorder: writing a recording (softrast/record.h). Skeleton: the
 * API builds and fails cleanly until the writer lands. */
#include <softrast/record.h>

struct sr_recorder {
    int unused;
};

sr_status sr_recorder_create(const char *path, const sr_recorder_desc *desc, sr_recorder **out, sr_error *err)
{
    (void)desc;
    if (out)
        *out = NULL;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "%s: sr_recorder_create: not implemented yet", path ? path : "(null)");
}

sr_status sr_recorder_frame(sr_recorder *rec, double time, sr_debug_list *const *lists, size_t list_count,
                            const sr_scene *scene, sr_error *err)
{
    (void)rec, (void)time, (void)lists, (void)list_count, (void)scene;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recorder_frame: not implemented yet");
}

sr_status sr_recorder_message(sr_recorder *rec, sr_record_level level, const char *text, sr_error *err)
{
    (void)rec, (void)level, (void)text;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recorder_message: not implemented yet");
}

sr_status sr_recorder_set_camera(sr_recorder *rec, const sr_camera *camera, sr_error *err)
{
    (void)rec, (void)camera;
    return sr_error_set(err, SR_ERROR_UNSUPPORTED, "sr_recorder_set_camera: not implemented yet");
}

sr_recorder_stats sr_recorder_get_stats(const sr_recorder *rec)
{
    (void)rec;
    return (sr_recorder_stats){0};
}

sr_status sr_recorder_close(sr_recorder *rec, sr_error *err)
{
    (void)rec;
    sr_error_clear(err);
    return SR_OK;
}

void sr_recorder_destroy(sr_recorder *rec)
{
    sr_recorder_close(rec, NULL);
}
