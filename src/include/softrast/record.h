/* softrast/record.h — recording a program's debug draws and scene to a crash-safe file, and
 * reading it back frame by frame: the recorder a physics program calls once per frame
 * (sr_recorder_*), and the reader that `softrast view` and `softrast replay` play it with
 * (sr_recording_*).
 *
 * A recording keeps what the program would have drawn: its debug lists (softrast/debug.h) as
 * the items' parameters (a sphere is a centre and a radius, never its segments) and, when the
 * program has a scene, the scene's meshes, textures and materials (each stored once, identical
 * meshes once) and its nodes' changes (a pose only when its bits change). Every frame is one
 * record written in one call and handed to the kernel before sr_recorder_frame returns, so a
 * program killed at any point leaves a file whose every completed frame reads back; a keyframe
 * (the whole retained state) every K frames bounds the work of a seek; an index and a trailer
 * written at close make opening instant. The format is documented in the README ("Recording
 * format").
 *
 * Stands on scene and debug; knows nothing of SDL (the viewer plays recordings through this
 * header). Thread-safety: an sr_recorder has a single writer (one thread at a time calls its
 * functions; lists and scene are read during sr_recorder_frame only); an sr_recording is used by
 * one thread at a time. Different objects are independent. */
#ifndef SOFTRAST_RECORD_H
#define SOFTRAST_RECORD_H

#include <softrast/core.h>
#include <softrast/debug.h>
#include <softrast/raster.h>
#include <softrast/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The file format this build writes: a reader refuses a file of a newer major version (with a
/// message naming both versions) and reads a newer minor version, skipping the record types it
/// does not know.
#define SR_RECORD_VERSION_MAJOR 1
#define SR_RECORD_VERSION_MINOR 1

/// The first 8 bytes of every recording ("\x89SRREC\r\n", PNG's trick: a high byte and line
/// ends catch files mangled by text transfers). sr_recording_probe tests for them.
#define SR_RECORD_MAGIC "\x89SRREC\r\n"
#define SR_RECORD_MAGIC_SIZE 8

/// Whether `path` starts with SR_RECORD_MAGIC (false when it cannot be read): how `softrast
/// view` recognises a recording whatever its name.
bool sr_recording_probe(const char *path);

/// Where the bytes of a recording go, by kind (sr_recorder_stats, sr_recording_info). Items are
/// counted by their debug kind: their tags, styles and parameters.
typedef struct sr_record_sizes {
    uint64_t items[SR_DEBUG_ITEM_KIND_COUNT];       ///< bytes of each kind of debug item
    uint64_t item_counts[SR_DEBUG_ITEM_KIND_COUNT]; ///< items of each kind
    uint64_t meshes;    ///< mesh definitions (geometry, parts; a mesh identical to one stored is not stored again)
    uint64_t textures;  ///< texture definitions (texels)
    uint64_t materials; ///< material definitions
    uint64_t nodes;     ///< nodes added, removed and changed (poses, visibility, materials)
    uint64_t views;     ///< cameras, lights, backgrounds (recorded when they change)
    /// Nodes' collision shapes (parameters, recorded when they change) and the hulls they use
    /// (each stored once).
    uint64_t shapes;
    uint64_t messages;  ///< the messages' records
    /// Item bytes not broken down by kind: the lists of a file opened without its index (a
    /// crashed writer's) are counted here until sr_recording_check decodes them.
    uint64_t unsorted_items;
    /// Everything else: the file header, record headers and checksums, frame and list headers,
    /// the index and the trailer.
    uint64_t framing;
    uint64_t total; ///< the sum of all the above: the file's size
} sr_record_sizes;

/* ------------------------------------------------------------------------------------------ */
/* Recording (src/record/recorder.c, record_encode.c, record_scene_write.c)                    */

/// A recording being written. Create with sr_recorder_create, finish with sr_recorder_close
/// (or sr_recorder_destroy). Single writer: not thread-safe.
typedef struct sr_recorder sr_recorder;

/// How a recording is written. Zero fields take their defaults.
typedef struct sr_recorder_desc {
    /// A keyframe (the whole retained state: nodes, camera, light, background) every this many
    /// frames, so that a seek decodes at most this many frames of changes. 0 = 60; at most 65536.
    uint32_t keyframe_interval;
    /// What is recorded (the program's name and run, say), shown by `softrast replay --info` and
    /// the viewer. NULL = "". Copied (up to 1023 bytes).
    const char *title;
    /// Names of the lists, by their place in sr_recorder_frame's `lists` (list_names[i] names
    /// lists[i]): the categories the viewer turns on and off. NULL or fewer names than lists:
    /// the others are "list N". Copied (each up to 255 bytes, at most 256 names).
    const char *const *list_names;
    size_t list_name_count;
    /// The file must not grow past this many bytes: a frame (or message) that would is refused
    /// (SR_ERROR_IO, nothing written) and so is every later one; the index and trailer are still
    /// written at close (past the limit by their size), so the file is whole. 0 = no limit.
    uint64_t max_bytes;
    /// fdatasync after every frame, so that frames also survive a power loss or a kernel crash
    /// (a killed program needs nothing more than the default write). Slow: milliseconds a frame.
    bool sync;
} sr_recorder_desc;

/// Creates (or truncates) the recording `path` and writes its header. The file is written in
/// place, not under a temporary name: a program that dies while recording leaves a readable
/// file at `path`. `desc` may be NULL. Free with sr_recorder_close or sr_recorder_destroy.
/// Errors: NULL path or out, a bad desc (keyframe interval, too many names), SR_ERROR_IO (the
/// file cannot be created; the message names it), out of memory.
sr_status sr_recorder_create(const char *path, const sr_recorder_desc *desc, sr_recorder **out, sr_error *err);

/// Records one frame at `time` (seconds, or any unit the program likes; finite): the items of
/// `lists` (`list_count` of them, NULL entries recorded as empty lists) as they are now, and,
/// when `scene` is not NULL, the scene's state: meshes, textures and materials the nodes use
/// (written once, the first time they are used; a mesh identical to one already written is
/// written as a reference to it), nodes added and removed, and each node's transform,
/// visibility and material where their bits changed since the previous frame (nothing for a
/// node that did not change), each node's collision shape when it was given, replaced or
/// removed (its sr_node_info.shape_version changed: an unchanged shape is not even looked at),
/// plus the scene's camera, light and background when they changed (the camera of
/// sr_recorder_set_camera wins over the scene's). The frame is encoded into the
/// recorder's buffers (grown to the largest frame so far, so a warm recorder allocates nothing)
/// and written with one write call; when it returns SR_OK the frame is in the kernel's hands and
/// survives the program being killed. Lists and scene are only read, during the call.
/// Errors: NULL rec, a non-finite time, lists NULL with list_count > 0, more than 65536 lists,
/// SR_ERROR_IO (the write failed, e.g. the disk is full: the file is cut back to the last
/// complete frame and the recorder refuses every later frame), SR_ERROR_OUT_OF_MEMORY (nothing
/// written; the next frame may succeed).
sr_status sr_recorder_frame(sr_recorder *rec, double time, sr_debug_list *const *lists, size_t list_count,
                            const sr_scene *scene, sr_error *err);

/// How much a message matters (markers on the viewer's timeline are coloured by it).
typedef enum sr_record_level {
    SR_RECORD_INFO = 0,
    SR_RECORD_WARNING,
    SR_RECORD_ERROR,
} sr_record_level;

/// Records a text message that marks the timeline at the frame being prepared: the frame the
/// next sr_recorder_frame records (messages written before the first frame mark frame 0). It is
/// written at once, in its own record, so that the last words of a program that then crashes are
/// kept (a reader shows a message that follows the last frame at that last frame). Copied (up
/// to 4095 bytes). Errors: NULL rec or text, a level out of range, those of the write.
sr_status sr_recorder_message(sr_recorder *rec, sr_record_level level, const char *text, sr_error *err);

/// The camera the next frames are recorded with (what `softrast replay --camera recorded`
/// and the viewer's recorded view use), until the next call; NULL goes back to the scene's
/// camera (or none without a scene). Errors: an invalid camera (sr_camera_check's message).
sr_status sr_recorder_set_camera(sr_recorder *rec, const sr_camera *camera, sr_error *err);

/// What has been written.
typedef struct sr_recorder_stats {
    uint64_t frames;    ///< frames recorded
    uint64_t keyframes; ///< of which keyframes
    uint64_t messages;
    sr_record_sizes bytes;     ///< the file so far (the index and trailer come at close)
    uint64_t last_frame_bytes; ///< the last frame's records (definitions, state and lists)
    /// Bytes the recorder holds (its buffers and its copy of the scene's state).
    size_t memory_bytes;
} sr_recorder_stats;
sr_recorder_stats sr_recorder_get_stats(const sr_recorder *rec);

/// Writes the index and the trailer, closes the file and frees the recorder (in every case,
/// errors included). Errors: SR_ERROR_IO (the index or trailer could not be written: the file is
/// still readable, as a crashed writer's is).
sr_status sr_recorder_close(sr_recorder *rec, sr_error *err);
/// sr_recorder_close without the error. NULL is fine.
void sr_recorder_destroy(sr_recorder *rec);

/* ------------------------------------------------------------------------------------------ */
/* Playback (src/record/recording.c, record_decode.c, record_scene_read.c, record_cache.c)     */

/// An open recording: its index (read at open, or rebuilt by scanning the records when the
/// writer never closed the file), a bounded cache of decoded frames, and the current frame
/// (sr_recording_seek): its lists and, when the recording has a scene, a scene of the recorded
/// meshes, materials and nodes at that frame. Never holds the whole file in memory. Used by one
/// thread at a time. Free with sr_recording_destroy.
typedef struct sr_recording sr_recording;

typedef struct sr_recording_desc {
    /// Memory for decoded frames (their lists and raw records); least recently used frames are
    /// dropped past it. 0 = 256 MiB. The current frame stays whatever its size. The index (24
    /// bytes a frame), the messages and the meshes and textures of the scene are not counted.
    size_t cache_bytes;
    /// Told how far a scan goes when the file has no index ("scanning NAME"); false from it stops
    /// the open with SR_ERROR_CANCELLED. NULL: none.
    sr_progress_fn progress;
    void *user;
} sr_recording_desc;

/// Opens `path`. A file closed cleanly has its index read (one read at the end of the file);
/// a file without one (its writer was killed) is scanned record by record, each checked, up to
/// the first incomplete or corrupt record, where the readable part ends (info.truncated says so,
/// with info.note saying where and why). `desc` may be NULL.
/// Errors (the message names the file and, where it matters, the byte offset): SR_ERROR_IO
/// (cannot open or read), SR_ERROR_PARSE (not a recording, a damaged header or index),
/// SR_ERROR_UNSUPPORTED (a newer major version: "written by format 2.0, this build reads 1.x"),
/// SR_ERROR_OUT_OF_MEMORY, SR_ERROR_CANCELLED.
sr_status sr_recording_open(const char *path, const sr_recording_desc *desc, sr_recording **out, sr_error *err);
/// Frees the recording and everything it owns (lists and scene handed out included). NULL is fine.
void sr_recording_destroy(sr_recording *rec);

/// What a recording holds, known at open.
typedef struct sr_recording_info {
    uint32_t version_major, version_minor; ///< of the file
    const char *title;                     ///< sr_recorder_desc.title ("" when none)
    uint64_t frame_count;                  ///< readable frames (0 for a file with none)
    double first_time, last_time;          ///< times of the first and last frames (0 when none)
    bool times_increase;                   ///< every frame's time >= the previous one's
    uint32_t keyframe_interval;
    size_t list_count;             ///< the most lists a frame has
    const char *const *list_names; ///< list_count names (sr_recorder_desc.list_names, or "list N")
    bool has_scene;                ///< some frame recorded a scene
    size_t message_count;
    /// The writer closed the file: its index and trailer are there and match.
    bool closed_cleanly;
    /// Bytes follow the last readable record that do not form a complete, valid record (a writer
    /// killed in the middle of a write, or a damaged tail): they are ignored.
    bool truncated;
    uint64_t file_bytes;     ///< the file's size
    uint64_t readable_bytes; ///< up to the end of the last readable record (file_bytes when clean)
    /// One line on how the file was read: "closed cleanly", or where the scan stopped and why
    /// ("no index (the writer did not close the file): scanned 4812 frames; 37 bytes at offset
    /// 1234567 are an incomplete frame record"). Valid while the recording lives.
    const char *note;
    /// Bytes by kind: from the index of a file closed cleanly; counted by the scan otherwise,
    /// with the items' bytes in bytes.unsorted_items (sr_recording_check breaks them down).
    sr_record_sizes bytes;
    uint64_t unknown_records; ///< records of types this build does not know (a newer minor version), skipped
} sr_recording_info;

/// The recording's info (valid while the recording lives).
const sr_recording_info *sr_recording_get_info(const sr_recording *rec);

/// Time of frame `frame` (NaN past the end).
double sr_recording_frame_time(const sr_recording *rec, uint64_t frame);
/// The last frame whose time is at most `time` (0 when `time` is before the first frame): the
/// frame to show at that moment of a playback. Binary search when times increase, otherwise the
/// first frame of the nearest time.
uint64_t sr_recording_frame_at_time(const sr_recording *rec, double time);
/// Whether `frame` is a keyframe (a seek from it decodes nothing before it).
bool sr_recording_frame_is_keyframe(const sr_recording *rec, uint64_t frame);

/// One message of the timeline (sr_recorder_message).
typedef struct sr_recording_message {
    uint64_t frame; ///< the frame it marks (clamped to the last frame)
    double time;    ///< that frame's time
    sr_record_level level;
    const char *text;
} sr_recording_message;
/// Every message, in the order written (so by frame); *count of them. Valid while the recording
/// lives.
const sr_recording_message *sr_recording_messages(const sr_recording *rec, size_t *count);

/// A frame as sr_recording_seek hands it out. Everything it points to is owned by the recording
/// and valid until the next sr_recording_seek or sr_recording_destroy.
typedef struct sr_recording_frame {
    uint64_t index; ///< the frame's number, 0-based
    double time;
    bool keyframe;
    /// The recorded scene at this frame: its meshes, textures and materials, and its nodes with
    /// their transforms, visibility and materials as recorded; its camera, light and background
    /// those of the frame. NULL when the recording has no scene. The same scene object at every
    /// seek (only what differs is changed), so a node keeps its handle across frames while it
    /// lives. Updated (sr_scene_update) by the seek: ready to pick. The caller may render and
    /// pick it, and must not edit it.
    sr_scene *scene;
    /// The camera recorded with this frame (sr_recorder_set_camera, or the scene's camera);
    /// has_camera is false when none was (no scene and no camera set).
    bool has_camera;
    sr_camera camera;
    /// The frame's lists, in the order recorded (list_count of the frame, up to
    /// info.list_count); empty lists for NULL entries. Owned by the recording: draw them, read
    /// them, do not clear or fill them. They share one draw scratch (sr_debug_list_desc.scratch):
    /// draw them one at a time.
    sr_debug_list *const *lists;
    size_t list_count;
    const char *const *list_names; ///< list_count names
    /// Messages marking this frame: sr_recording_messages()[message_first .. + message_count).
    size_t message_first, message_count;
    uint64_t record_bytes; ///< the frame's records in the file (state and lists)
    /// Frames whose records the seek read from the file (lists and state changes, the keyframe
    /// included; 0 when the frame came from the cache and the scene needed no change).
    uint32_t frames_decoded;
} sr_recording_frame;

/// Makes `frame` the current frame and describes it in *out (may be NULL): its lists (from the
/// cache, or decoded from the file into it) and its scene state (from the current state when
/// going one frame forward, else from the nearest keyframe at or before `frame` plus the changes
/// of the frames up to it). Meshes and textures are read when a frame first needs them (a
/// mesh's BVH is built then). Errors (the current frame is then unchanged, or, when the scene
/// could only be partly brought to the frame, its state undefined until a seek succeeds):
/// frame past the end (SR_ERROR_INVALID_ARGUMENT), SR_ERROR_PARSE (a corrupt record: the message
/// names the file, the frame and the offset), SR_ERROR_IO, SR_ERROR_OUT_OF_MEMORY.
sr_status sr_recording_seek(sr_recording *rec, uint64_t frame, sr_recording_frame *out, sr_error *err);
/// The current frame (index 0, no lists and no scene before the first successful seek).
const sr_recording_frame *sr_recording_current(const sr_recording *rec);

/// The node of the recording program's scene that `node` of the current frame's scene stands
/// for: its handle as the program had it (SR_NODE_NULL for a stale or foreign handle).
sr_node_id sr_recording_source_node(const sr_recording *rec, sr_node_id node);
/// The current frame's scene node that stands for the program's node `source`, or SR_NODE_NULL
/// when that node does not exist at this frame. How a viewer keeps a picked node across seeks.
sr_node_id sr_recording_node_of_source(const sr_recording *rec, sr_node_id source);

/// The cache at work.
typedef struct sr_recording_cache_stats {
    size_t bytes, limit;   ///< memory held by decoded frames, and its bound (desc.cache_bytes)
    size_t frames;         ///< frames held
    uint64_t hits, misses; ///< seeks served by the cache or by the file
    uint64_t evictions;    ///< frames dropped to stay within the bound
    uint64_t bytes_read;   ///< read from the file since open (the scan or index included)
    size_t scene_bytes;    ///< the recorded scene's meshes, textures and node state (not bounded)
    /// Of `bytes`: lists kept for frames to come (those of dropped frames, spares prepared)
    size_t pooled_bytes;
    uint64_t spares; ///< spare lists sr_recording_prepare made
    /// Segments the cached lists' shared draw scratch has room for: the most one of their lists
    /// draws (sr_renderer_reserve_lines readies a renderer for them)
    size_t draw_segments;
} sr_recording_cache_stats;
sr_recording_cache_stats sr_recording_get_cache_stats(const sr_recording *rec);

/// Prepares memory for the next frame read from the file, while the cache is below its bound:
/// at the first call, the file's largest frame (by its bytes in the index) is read, for the
/// size of its lists and the read buffer it needs; then, a call at a time, a spare list with
/// room for as many items as the largest list seen, every page of it (and of the draw scratch)
/// written, kept with the cache (it counts against sr_recording_desc.cache_bytes). A first
/// visit to a frame of that size then decodes into memory touched before, as it does once the
/// cache is full (into the memory of the frames it drops), instead of asking the system for
/// fresh pages on the seek (some 1.5 ms a megabyte on a virtual machine: 15 ms for a frame of
/// 100,000 lines). For a viewer's idle time: a call takes as long as touching one list's memory.
/// Returns true when it did some of that (call again while idle); false when there is nothing
/// to do: a spare is ready, it would not fit the bound, every frame is cached, no frame was
/// sought yet, or memory ran out (a seek then allocates, as without a spare). Never changes what
/// a seek hands out.
bool sr_recording_prepare(sr_recording *rec);

/* ---- drawing and framing ---- */

/// What sr_recording_render draws. Zero fields take their defaults.
typedef struct sr_recording_render_desc {
    /// The camera (NULL: the frame's recorded camera; without one, sr_recording_fit_camera of
    /// the current frame).
    const sr_camera *camera;
    /// Which lists are drawn: shown[i] for list i (frame.list_count entries). NULL: all.
    const bool *lists_shown;
    bool no_scene; ///< draw the lists alone
    /// The colour the frame is cleared to: the scene's background when 0 and the frame has a
    /// scene, else SR_BENCH_SCENE_BACKGROUND.
    uint32_t background;
    /// NULL, or a frame (sr_scene_frame_create) that receives the scene's render: what it drew and
    /// culled, its statistics and ids, for overlays over the image (sr_overlay_add).
    sr_scene_frame *scene_frame;
    /// NULL, or where the camera the frame was drawn with goes (the given, recorded or fitted one).
    sr_camera *camera_used;
} sr_recording_render_desc;

/// Draws the current frame into `fb` as a program that draws its scene and lists does: clears
/// colour and depth (and ids), renders the scene (sr_scene_render, which updates it) and draws
/// each shown list over it (sr_debug_draw) with the camera's matrices for fb's size. The image is
/// the same for any thread count of `renderer`. `desc` may be NULL. Errors: NULL arguments, an
/// invalid camera, those of sr_scene_render and sr_debug_draw.
sr_status sr_recording_render(sr_recording *rec, sr_renderer *renderer, sr_framebuffer *fb,
                              const sr_recording_render_desc *desc, sr_error *err);

/// The world box of what the current frame draws: the scene's drawn instances and every 3D item
/// of its lists (2D items left out; boxes, spheres and the like by their extent). Points that are
/// not finite or past 1e15 in a coordinate (a simulation that blew up) are left out, so that the
/// box can be framed. Empty when there is nothing.
sr_aabb sr_recording_frame_bounds(const sr_recording *rec);
/// A camera that shows frames first .. last (inclusive) whole: sr_camera_fit_box of the union of
/// their sr_recording_frame_bounds for an image of `aspect` (width / height), with up +Y. The
/// frames are decoded (through the cache); the current frame is `last` afterwards. Errors: those
/// of sr_recording_seek, a range past the end or reversed.
sr_status sr_recording_fit_camera(sr_recording *rec, uint64_t first, uint64_t last, float aspect, sr_camera *camera,
                                  sr_error *err);

/* ---- picking recorded items ---- */

/// A debug item of the current frame found under a window point.
typedef struct sr_recording_item_pick {
    bool hit;
    uint32_t list;      ///< the list it is in (its place in the frame's lists)
    uint32_t index;     ///< its place in that list (sr_debug_list_items)
    sr_debug_item item; ///< a copy of it (offsets of points and text refer to that list)
    float distance_px;  ///< from the point to the item's drawing, in pixels
    float depth;        ///< window depth (0 near, 1 far) of the item's point nearest the window point
    sr_vec3 position;   ///< that point in world space (for 2D items: x, y in pixels, z 0)
} sr_recording_item_pick;

/// Picks the debug item of the current frame whose drawing passes nearest window point (x, y) of
/// a `width` x `height` image seen by `camera` (NULL: as sr_recording_render chooses), within
/// `radius_px` pixels (0: 6); among items about as near (within a pixel), the nearest in depth,
/// then the last drawn. Lines, arrows, the edges of boxes, triangles, polylines and frustums are
/// their segments; spheres, capsules, cylinders, cones and circles their outlines as drawn;
/// points and dots their disc; text and 2D rectangles their box. Only lists with lists_shown[i]
/// (NULL: all). out->hit is false when nothing is near. Errors: NULL out, an invalid camera or size.
sr_status sr_recording_pick_item(const sr_recording *rec, const sr_camera *camera, int width, int height, float x,
                                 float y, float radius_px, const bool *lists_shown, sr_recording_item_pick *out,
                                 sr_error *err);

/// After a seek: the item of the current frame that is most likely `previous` (an item picked at
/// another frame), so that a selection survives scrubbing. Debug items have no identity, so this
/// matches: the same list and kind and colour, then the nearest in position (its anchor: a
/// line's midpoint, a shape's centre), preferring the same place in the list on ties. False when
/// the current frame has no item of that list, kind and colour.
bool sr_recording_find_item(const sr_recording *rec, const sr_recording_item_pick *previous,
                            sr_recording_item_pick *out);

/* ---- verification ---- */

/// What sr_recording_check found.
typedef enum sr_recording_health {
    SR_RECORDING_CLEAN = 0, ///< closed cleanly, every record valid
    SR_RECORDING_TRUNCATED, ///< no index, or an incomplete tail: every complete frame is readable
    SR_RECORDING_DAMAGED,   ///< a corrupt record (or index) among valid ones: some frames are lost
} sr_recording_health;

typedef struct sr_recording_check_report {
    sr_recording_health health;
    uint64_t frames;           ///< frames whose every record is valid and decodes
    uint64_t records;          ///< records checked
    uint64_t bad_records;      ///< corrupt records (bad checksum, length or contents)
    uint64_t unknown_records;  ///< records of unknown types (a newer minor version), skipped
    uint64_t first_bad_offset; ///< byte offset of the first problem (UINT64_MAX: none)
    sr_record_sizes bytes;     ///< exact, counted from the records
    char message[512];         ///< one line: what was found, and where ("clean: 10000 frames, ...")
} sr_recording_check_report;

/// Reads and checks every record of `path`: the header, each record's length and checksum, the
/// decoding of every frame's lists and state, the index and trailer against the records. `desc`
/// may be NULL (its progress callback is told of the reading). Returns SR_OK when the file was
/// checked (the report says how healthy it is), an error when it cannot be read as a recording
/// at all (not one, unreadable header, a newer major version; the same errors as
/// sr_recording_open). `softrast replay --check` exits 0, 3 or 1 for clean, truncated and
/// damaged or unreadable.
sr_status sr_recording_check(const char *path, const sr_recording_desc *desc, sr_recording_check_report *report,
                             sr_error *err);

#ifdef __cplusplus
}
#endif
#endif
