/* viewer_playback.h — playing a recording in the viewer (private to src/viewer): the state of a
 * recording being shown (softrast/record.h's reader), kept apart from the viewer's own (camera,
 * overlays, picks): the frame shown, play and pause, speed, the loop range, which lists and colours
 * are shown, the selection that survives scrubbing, and the timeline's and legend's places on the
 * frame for the mouse. viewer_playback.c moves through the recording, viewer_timeline.c draws the
 * timeline and the legend and answers the mouse over them, viewer_playback_report.c puts the
 * playback into words (the HUD's lines, print-state and print-pick). */
#ifndef SR_VIEWER_PLAYBACK_H
#define SR_VIEWER_PLAYBACK_H

#include <softrast/record.h>
#include <softrast/viewer.h>

#include <SDL.h>
#include <math.h>
#include <stdio.h>

/// Speeds of play, as powers of two of real time: 1/16x to 16x.
#define PLAYBACK_SPEED_MIN (-4)
#define PLAYBACK_SPEED_MAX 4
/// Frames a second when the recording's times do not increase (all frames at one time, say).
#define PLAYBACK_FALLBACK_FPS 60.0
/// Most colours the legend lists (and can hide); further colours are always shown.
#define PLAYBACK_MAX_COLOURS 32
/// Lists whose categories can be hidden (a frame's further lists are always shown).
#define PLAYBACK_MAX_LISTS 64
/// How far from a click (frame pixels at text scale 1) an item is still picked.
#define PLAYBACK_PICK_RADIUS 5.0f

/// A colour of the current frame's items, as the legend lists it.
typedef struct playback_colour {
    uint32_t color; ///< sr_rgba8 as recorded
    size_t items;   ///< items of that colour in the frame's shown lists
} playback_colour;

/// What is selected: an item of the frame's lists, or a node of its scene.
typedef enum playback_selection_kind {
    PLAYBACK_SELECTED_NONE = 0,
    PLAYBACK_SELECTED_ITEM,
    PLAYBACK_SELECTED_NODE,
} playback_selection_kind;

typedef struct playback_selection {
    playback_selection_kind kind;
    uint64_t picked_frame; ///< the frame the click was made at
    /// The item as last found (at picked_frame, then at each frame it was found again): what
    /// sr_recording_find_item looks for after a seek.
    sr_recording_item_pick item;
    bool item_here;         ///< the item exists at the frame shown (item.list / item.index are valid there)
    sr_node_id source_node; ///< the program's handle of the picked node
    sr_node_id node;        ///< that node in the frame shown's scene (SR_NODE_NULL: not at this frame)
} playback_selection;

/// The places of the timeline and the legend on the last frame drawn (frame pixels), for the mouse.
typedef struct playback_layout {
    float bar_x0, bar_x1, bar_y0, bar_y1; ///< the slider's track
    float top;                            ///< the timeline's panel starts here (everything below is it)
    int legend_rows;                      ///< rows of the legend (lists, then colours)
    float legend_x0, legend_x1, legend_y0, legend_row_height;
    int legend_row_list[PLAYBACK_MAX_LISTS + PLAYBACK_MAX_COLOURS];   ///< the list of a row, or -1
    int legend_row_colour[PLAYBACK_MAX_LISTS + PLAYBACK_MAX_COLOURS]; ///< the colour of a row, or -1
} playback_layout;

typedef struct viewer_playback {
    sr_recording *recording;
    char path[4096];
    bool seen;          ///< a recording was taken before (the next one is a reload)
    bool camera_chosen; ///< the first frame shown chose the view (home) camera
    /// The scene shown when the recording has none (the camera, grid, axes and HUD work on it).
    sr_scene *empty_scene;
    const sr_recording_info *info;
    sr_recording_frame frame; ///< the frame shown (its lists and scene belong to the recording)
    bool has_frame;           ///< a seek succeeded
    size_t reserved_lines;    ///< segments the renderer's line memory was readied for (idle time)
    char seek_error[512];     ///< the last failed seek's message ("" after a success)

    /* play */
    bool playing;
    int speed; ///< the speed is 2^speed times real time
    /// The wall-clock moment (milliseconds) play started or last changed speed, and the recorded
    /// time (or, without increasing times, the frame) shown then: the frame to show at any moment
    /// follows from them.
    double play_wall_ms;
    double play_origin;
    bool by_time; ///< play follows the recorded times (false: PLAYBACK_FALLBACK_FPS frames a second)

    /* the loop range */
    bool loop; ///< play wraps from loop_last to loop_first
    uint64_t loop_first, loop_last;
    bool loop_marked; ///< L was pressed once: loop_mark is the range's first end
    uint64_t loop_mark;

    /* what is shown */
    bool list_hidden[PLAYBACK_MAX_LISTS];
    uint32_t hidden_colours[PLAYBACK_MAX_COLOURS];
    int hidden_colour_count;
    bool legend; ///< K: the legend panel
    playback_colour colours[PLAYBACK_MAX_COLOURS];
    int colour_count;    ///< of the frame shown (the first PLAYBACK_MAX_COLOURS by first use)
    size_t colours_more; ///< items of colours past PLAYBACK_MAX_COLOURS
    /// The frame's lists without the hidden colours (rebuilt after a seek or a change of the
    /// hidden colours), one per list of the frame; NULL when no colour is hidden.
    sr_debug_list **filtered;
    size_t filtered_count, filtered_capacity;
    bool filtered_stale;
    sr_debug_list *highlight;     ///< the selection's halo, over everything
    sr_debug_list *highlight_top; ///< the selected item again, over its halo
    sr_debug_list **shown;        ///< what viewer_playback_lists hands out
    size_t shown_capacity;

    /* the selection */
    playback_selection selection;

    /* the mouse over the timeline */
    bool scrubbing;      ///< the left button went down on the timeline and is held
    bool scrub_loop;     ///< shift held: the drag sets the loop range
    uint64_t scrub_from; ///< where a loop drag started
    playback_layout layout;
} viewer_playback;

/* Small questions the playback files share. */

static inline uint64_t playback_frame_count(const viewer_playback *p)
{
    return p->info ? p->info->frame_count : 0;
}

/* The colour an item is shown and filtered by: its outline's, or its fill's when it has no
 * outline. */
static inline uint32_t playback_item_colour(const sr_debug_item *item)
{
    if (item->style.color >> 24)
        return item->style.color;
    switch (item->kind) {
    case SR_DEBUG_ITEM_CIRCLE:
        return item->circle.fill_color;
    case SR_DEBUG_ITEM_TRIANGLE:
        return item->triangle.fill_color;
    case SR_DEBUG_ITEM_POLYLINE:
        return item->polyline.fill_color;
    default:
        return item->style.color;
    }
}

static inline bool playback_colour_hidden(const viewer_playback *p, uint32_t color)
{
    for (int i = 0; i < p->hidden_colour_count; i++)
        if (p->hidden_colours[i] == color)
            return true;
    return false;
}

static inline bool playback_list_hidden(const viewer_playback *p, size_t list)
{
    return list < PLAYBACK_MAX_LISTS && p->list_hidden[list];
}

/* 2^speed. */
static inline double playback_speed_factor(int speed)
{
    return ldexp(1.0, speed);
}

struct sr_viewer;

/* viewer_playback.c */
/// Takes `recording` (opened by the loader, its first frame not sought yet) as what the viewer
/// shows; frees the one shown before. Goes to frame `frame` (clamped; the last one when
/// `follow_end`), keeping the play state, filters and selection of a reload.
void viewer_playback_take(struct sr_viewer *viewer, sr_recording *recording, uint64_t frame, bool follow_end);
/// Frees the playback state and its recording.
void viewer_playback_free(struct sr_viewer *viewer);
/// Goes to `frame` (clamped to the recording): the scene and lists of that frame, the selection
/// found again, the view following the recorded camera unless the user moved it. False (with the
/// error in the HUD) when the frame cannot be read.
bool viewer_playback_seek(struct sr_viewer *viewer, uint64_t frame);
/// Starts or stops play (from the frame shown; at the last frame, play starts from the first).
void viewer_playback_play(struct sr_viewer *viewer, bool play);
/// While playing, play goes on from the frame shown (after a seek from code or the mouse).
void viewer_playback_restart_clock(struct sr_viewer *viewer);
/// While playing: shows the frame of this moment (wraps in the loop range, stops at the end).
void viewer_playback_tick(struct sr_viewer *viewer);
/// Idle time's work: memory for the next frame the recording reads from the file, while its
/// cache fills (sr_recording_prepare), then the renderer's line memory for the largest list
/// (sr_renderer_reserve_lines). True when some was prepared (more may follow).
bool viewer_playback_prepare(struct sr_viewer *viewer);
/// Milliseconds until play needs the next frame (-1 when not playing).
int viewer_playback_wakeup(const struct sr_viewer *viewer);
/// A key of the help's playback section: true when it was one (handled).
bool viewer_playback_key(struct sr_viewer *viewer, SDL_Keycode key, Uint16 modifiers);
/// A click at frame pixel (x, y) outside the timeline and the legend: selects the item drawn
/// there (nearest within a few pixels), else the node the ray hits; else clears the selection.
void viewer_playback_click(struct sr_viewer *viewer, float x, float y);
/// Clears the selection.
void viewer_playback_clear_selection(struct sr_viewer *viewer);
/// The lists the frame draws (the shown lists, filtered by colour), then the selection's
/// highlight, in *lists (valid until the next call or seek); returns how many.
int viewer_playback_lists(struct sr_viewer *viewer, sr_debug_list *const **lists);
/// Sets the loop range (first <= last, clamped), or clears it (loop false).
void viewer_playback_set_loop(struct sr_viewer *viewer, bool loop, uint64_t first, uint64_t last);
/// Shows or hides list `list` (a category).
void viewer_playback_toggle_list(struct sr_viewer *viewer, int list);
/// Shows or hides the items of `color`.
void viewer_playback_toggle_colour(struct sr_viewer *viewer, uint32_t color);
/* viewer_playback_report.c */
/// The HUD's lines about the recording: title, frame, messages of the frame, the selection.
void viewer_playback_hud(const struct sr_viewer *viewer, char *text, size_t size);
/// The "recording" object of print-state, and the selection for print-pick (JSON, no newline).
void viewer_playback_print_state(const struct sr_viewer *viewer, FILE *out);
void viewer_playback_print_pick(const struct sr_viewer *viewer, FILE *out);

/// "2x", "1/4x".
void viewer_speed_text(int speed, char *out, size_t size);
/// "info", "warning", "error".
const char *viewer_level_name(sr_record_level level);

/* viewer_timeline.c */
/// Appends the timeline (and the legend when on) to `list` for the frame being drawn, and
/// records where they are for the mouse.
void viewer_timeline_add(struct sr_viewer *viewer, sr_debug_list *list, int scale);
/// The height of the timeline's panel at text scale `scale` (frame pixels).
float viewer_timeline_height(int scale);
/// A left press at (x, y): true when it was on the timeline or the legend (and handled there:
/// a seek, the start of a scrub or a loop drag, a row of the legend toggled).
bool viewer_timeline_press(struct sr_viewer *viewer, float x, float y, bool shift);
/// The mouse moved to (x, y) with the button held after a press on the timeline.
void viewer_timeline_drag(struct sr_viewer *viewer, float x, float y);
/// The button was released: the scrub or loop drag ends.
void viewer_timeline_release(struct sr_viewer *viewer, float x, float y);
/// Whether (x, y) is on the timeline's panel or the legend.
bool viewer_timeline_contains(const struct sr_viewer *viewer, float x, float y);

#endif
