/* src/record/record_reader.h — the layout of sr_recording, shared by recording.c (opening: the
 * header, the index or a scan of the records, the messages), record_playback.c (seeking: the
 * state, the cache of decoded frames) and record_render.c (drawing, framing, picking). Never
 * installed. */
#ifndef SR_RECORD_READER_H
#define SR_RECORD_READER_H

#include "record_scene.h"

/// Index entry flags.
enum {
    REC_ENTRY_KEYFRAME = 1u << 0, ///< seeking may start here (a keyframe state, or no state yet)
    REC_ENTRY_STATE = 1u << 1,    ///< the frame's first record is a STATE record
};

/// Where a frame's records are: its STATE record (when it has one) then its FRAME record,
/// `length` bytes from `offset`.
typedef struct rec_frame_entry {
    uint64_t offset;
    double time;
    uint32_t length;
    uint32_t flags;
} rec_frame_entry;

/// A decoded frame in the cache.
typedef struct rec_cache_entry {
    uint64_t frame;
    uint64_t last_use; ///< the seek counter when it was last handed out
    sr_debug_list **lists;
    size_t list_count, list_capacity;
    size_t bytes; ///< memory of its lists
    uint64_t record_bytes;
} rec_cache_entry;

struct sr_recording {
    char *path;
    int fd;
    uint64_t file_size;
    rec_header header;
    sr_recording_info info;
    char note[640];
    char **list_names; ///< info.list_count names (the header's, then "list N")

    rec_frame_entry *frames;
    uint64_t frame_count;
    rec_definition *definitions; ///< sorted by (type, id)
    size_t definition_count;
    sr_recording_message *messages;
    size_t message_count;
    char *message_text; ///< the messages' texts, each NUL-terminated
    bool has_state;     ///< some frame has a STATE record

    /// Records read from the file: frames, and definitions (a separate buffer, since the scene
    /// reads definitions while a frame's state is being applied).
    uint8_t *buffer, *definition_buffer;
    size_t buffer_capacity, definition_capacity;

    rec_cache_entry *cache;
    size_t cache_count, cache_capacity;
    sr_debug_list **pool; ///< lists of evicted frames, kept for reuse (their memory counts)
    size_t pool_count, pool_capacity, pool_bytes;
    size_t cache_limit, cache_bytes;
    /// The draw scratch every list of the cache shares (one frame is drawn at a time): a list
    /// kept holds only its items. Counted with the read buffers.
    sr_debug_scratch *draw_scratch;
    /// The most items a list decoded so far (or of the file's largest frame) had: the size of the
    /// spare sr_recording_prepare makes.
    size_t largest_list_items;
    bool largest_frame_read; ///< sr_recording_prepare read the file's largest frame (or tried)
    uint64_t seeks;
    sr_recording_cache_stats stats;

    rec_scene_reader scene;
    bool state_valid;
    uint64_t state_frame; ///< the frame whose state the reader holds (when state_valid)

    sr_recording_frame current;
    bool has_current;
    uint64_t current_frame;
    rec_decode_scratch scratch;
};

/// Reads `size` bytes at `offset` into `*buffer` (grown to fit). SR_ERROR_IO names the file.
sr_status rec_read_at(sr_recording *rec, uint64_t offset, size_t size, uint8_t **buffer, size_t *capacity,
                      sr_error *err);
/// Checks the record at the start of `data` (`size` bytes available): its length fits, its CRC
/// matches. Returns the payload and its length, or false with `why` filled.
bool rec_record_check(const uint8_t *data, size_t size, uint32_t *type, const uint8_t **payload, uint32_t *payload_size,
                      char *why, size_t why_size);

/// The memory a list holds (its capacities).
size_t rec_list_memory(const sr_debug_list *list);

/// The readers' definition callback (rec_read_definition_fn) over the recording's index.
sr_status rec_read_definition(void *user, uint32_t type, uint32_t id, const uint8_t **payload, size_t *size,
                              sr_error *err);

/// Frees the cache, the pool and the lists' shared draw scratch (record_playback.c).
void rec_cache_free(sr_recording *rec);

/// Opens `path` without building anything for playback: header, index or scan, messages
/// (recording.c; sr_recording_open and sr_recording_check use it). `verify` checks every record's
/// checksum during a scan (a check does; an open checks only what it needs).
sr_status rec_open(const char *path, const sr_recording_desc *desc, bool verify, sr_recording **out, sr_error *err);

/* record_render.c's helpers that record_pick.c shares. */
/// SR_OK when `rec` has a current frame; else an error naming `function`.
sr_status rec_need_frame(const sr_recording *rec, const char *function, sr_error *err);
/// The affine part of a matrix applied to a point (the last row ignored, as debug boxes are drawn).
sr_vec3 rec_affine_point(const sr_mat4 *m, sr_vec3 p);
/// The 8 corners of a frustum (clip cube, zero-to-one depth, mapped back); false when singular.
bool rec_frustum_corners(const sr_mat4 *view_projection, sr_vec3 corners[8]);
/// The camera a frame is drawn with: `given`, else the recorded one, else one framing the frame.
sr_status rec_frame_camera(const sr_recording *rec, const sr_camera *given, int width, int height, sr_camera *camera,
                           sr_error *err);
/// The radius of a sphere around a shape item's position that holds it in any rotation.
float rec_shape_reach(const sr_debug_list *list, const sr_debug_item *item);

#endif
