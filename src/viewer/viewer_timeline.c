/* viewer_timeline.c — a recording's timeline and legend, drawn into the HUD's list over
 * everything else, and the mouse over them. The timeline is a panel across the bottom of the
 * frame: a line of text (frame number and time, play state, speed, loop range, the last message
 * at or before the frame shown) over a slider whose track spans the frame's width, with the part
 * played, the loop range, a tick for each message (coloured by its level) and the handle at the
 * frame shown. Pressing on the panel goes to the frame under the pointer and dragging scrubs;
 * with Shift held the drag sets the loop range. The legend (K) lists the recorded lists (the
 * categories) and the colours of the frame's items with their counts; a click on a row shows or
 * hides it. Text scales with the frame (sr_overlay_text_scale), as the HUD's does. */
#include "viewer_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// Panel height in font pixels (scale 1): a text row, the slider with its ticks, margins.
#define TIMELINE_HEIGHT 40.0f
#define TIMELINE_MARGIN 8.0f
#define TRACK_TOP 25.0f
#define TRACK_HEIGHT 7.0f
#define LEGEND_ROW 12.0f

#define COLOR_BACKDROP 0xb8000000u  ///< black at 72%
#define COLOR_TRACK 0xff4a4a4au     ///< dark grey
#define COLOR_PLAYED 0xff9a7a3au    ///< muted blue
#define COLOR_LOOP 0x9060d060u      ///< translucent green
#define COLOR_LOOP_MARK 0xff20d8ffu ///< yellow
#define COLOR_HANDLE 0xffffffffu
#define COLOR_INFO 0xffd0d0d0u
#define COLOR_WARNING 0xff20c8ffu ///< amber
#define COLOR_ERROR 0xff4050ffu   ///< red
#define COLOR_TEXT 0xffffffffu
#define COLOR_DIM 0xff909090u

float viewer_timeline_height(int scale)
{
    return TIMELINE_HEIGHT * (float)scale;
}

static uint32_t level_colour(sr_record_level level)
{
    return level == SR_RECORD_ERROR ? COLOR_ERROR : level == SR_RECORD_WARNING ? COLOR_WARNING : COLOR_INFO;
}

static uint64_t last_frame(const viewer_playback *p)
{
    return p->info && p->info->frame_count ? p->info->frame_count - 1 : 0;
}

/* The track's x of frame `frame`. */
static float frame_x(const viewer_playback *p, uint64_t frame)
{
    const playback_layout *l = &p->layout;
    uint64_t last = last_frame(p);
    return last == 0 ? l->bar_x0 : l->bar_x0 + (l->bar_x1 - l->bar_x0) * (float)((double)frame / (double)last);
}

/* The frame under track x (clamped). */
static uint64_t x_frame(const viewer_playback *p, float x)
{
    const playback_layout *l = &p->layout;
    uint64_t last = last_frame(p);
    if (last == 0 || !(l->bar_x1 > l->bar_x0))
        return 0;
    double t = ((double)x - (double)l->bar_x0) / ((double)l->bar_x1 - (double)l->bar_x0);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    return (uint64_t)llround(t * (double)last);
}

static void rect(sr_debug_list *list, float x, float y, float width, float height, uint32_t color)
{
    sr_debug_rect_2d(list, x, y, width, height, true, (sr_debug_style){.color = color, .on_top = true});
}

static void text(sr_debug_list *list, float x, float y, const char *line, uint32_t color, int scale)
{
    sr_debug_text_2d(list, x, y, line, (sr_debug_style){.color = color, .width = scale, .on_top = true});
}

/* The last message at or before the frame shown (NULL: none). */
static const sr_recording_message *last_message(const viewer_playback *p)
{
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(p->recording, &count);
    const sr_recording_message *found = NULL;
    for (size_t i = 0; i < count; i++)
        if (messages[i].frame <= p->frame.index && (!found || messages[i].frame >= found->frame))
            found = &messages[i];
    return found;
}

/* `source` cut to `most` characters (with "..." when cut) into `out`. */
static void fit(char *out, size_t size, const char *source, int most)
{
    if (most <= 0) {
        out[0] = '\0';
        return;
    }
    size_t length = strlen(source);
    if (length <= (size_t)most) {
        snprintf(out, size, "%s", source);
        return;
    }
    int keep = most > 3 ? most - 3 : 0;
    snprintf(out, size, "%.*s%s", keep, source, most > 3 ? "..." : "");
    for (char *c = out; *c; c++)
        if (*c == '\n')
            *c = ' ';
}

static void add_legend(viewer_playback *p, sr_debug_list *list, float frame_width, int scale)
{
    playback_layout *l = &p->layout;
    l->legend_rows = 0;
    if (!p->legend)
        return;
    const float s = (float)scale, row = LEGEND_ROW * s, margin = 7.0f * s, swatch = 8.0f * s;
    const float cell = 6.0f * s;
    // The rows: "lists" and its lists, "colours" and the frame's colours.
    char lines[PLAYBACK_MAX_LISTS + PLAYBACK_MAX_COLOURS + 2][96];
    int list_of[PLAYBACK_MAX_LISTS + PLAYBACK_MAX_COLOURS + 2],
        colour_of[PLAYBACK_MAX_LISTS + PLAYBACK_MAX_COLOURS + 2];
    int rows = 0, widest = 0;
    size_t lists = p->info->list_count < PLAYBACK_MAX_LISTS ? p->info->list_count : PLAYBACK_MAX_LISTS;
    snprintf(lines[rows], sizeof lines[0], "%s", lists ? "lists (1-9)" : "no lists");
    list_of[rows] = colour_of[rows] = -1;
    rows++;
    for (size_t i = 0; i < lists; i++) {
        size_t items = i < p->frame.list_count ? sr_debug_list_get_stats(p->frame.lists[i]).items : 0;
        const char *name = p->info->list_names ? p->info->list_names[i] : "";
        snprintf(lines[rows], sizeof lines[0], "[%c] %zu %.40s  %zu", p->list_hidden[i] ? ' ' : 'x', i + 1, name,
                 items);
        list_of[rows] = (int)i;
        colour_of[rows] = -1;
        rows++;
    }
    snprintf(lines[rows], sizeof lines[0], "colours (Shift+1-9)%s", p->colours_more ? " and more" : "");
    list_of[rows] = colour_of[rows] = -1;
    rows++;
    for (int c = 0; c < p->colour_count; c++) {
        uint32_t color = p->colours[c].color;
        bool hidden = false;
        for (int h = 0; h < p->hidden_colour_count; h++)
            hidden |= p->hidden_colours[h] == color;
        snprintf(lines[rows], sizeof lines[0], "[%c]    #%02x%02x%02x  %zu", hidden ? ' ' : 'x', color & 0xffu,
                 color >> 8 & 0xffu, color >> 16 & 0xffu, p->colours[c].items);
        list_of[rows] = -1;
        colour_of[rows] = c;
        rows++;
    }
    for (int r = 0; r < rows; r++) {
        int width;
        sr_overlay_text_size(lines[r], scale, &width, NULL);
        widest = width > widest ? width : widest;
    }
    float width = (float)widest + 2.0f * margin;
    float x = frame_width - width - TIMELINE_MARGIN * s, y = TIMELINE_MARGIN * s;
    x = x < 0.0f ? 0.0f : x;
    rect(list, x, y, width, (float)rows * row + 2.0f * margin - (row - 10.0f * s), COLOR_BACKDROP);
    l->legend_x0 = x;
    l->legend_x1 = x + width;
    l->legend_y0 = y + margin;
    l->legend_row_height = row;
    l->legend_rows = rows;
    for (int r = 0; r < rows; r++) {
        float ty = y + margin + (float)r * row;
        bool header = list_of[r] < 0 && colour_of[r] < 0;
        bool off =
            (list_of[r] >= 0 && p->list_hidden[list_of[r]]) || (colour_of[r] >= 0 && strncmp(lines[r], "[ ]", 3) == 0);
        text(list, x + margin, ty, lines[r], header ? COLOR_DIM : off ? COLOR_DIM : COLOR_TEXT, scale);
        if (colour_of[r] >= 0)
            rect(list, x + margin + 4.0f * cell, ty + 1.0f * s, swatch, swatch,
                 p->colours[colour_of[r]].color | 0xff000000u);
        l->legend_row_list[r] = list_of[r];
        l->legend_row_colour[r] = colour_of[r];
    }
}

void viewer_timeline_add(sr_viewer *viewer, sr_debug_list *list, int scale)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->info)
        return;
    const float s = (float)scale, width = (float)viewer->fb->width, height = (float)viewer->fb->height;
    playback_layout *l = &p->layout;
    const float panel = viewer_timeline_height(scale);
    l->top = height - panel;
    l->bar_x0 = TIMELINE_MARGIN * s;
    l->bar_x1 = width - TIMELINE_MARGIN * s;
    l->bar_y0 = l->top + TRACK_TOP * s;
    l->bar_y1 = l->bar_y0 + TRACK_HEIGHT * s;
    rect(list, 0.0f, l->top, width, panel, COLOR_BACKDROP);

    // The slider: track, the part played, the loop range, the message ticks, the handle.
    const float track = l->bar_x1 - l->bar_x0;
    if (track > 0.0f) {
        rect(list, l->bar_x0, l->bar_y0, track, l->bar_y1 - l->bar_y0, COLOR_TRACK);
        float here = frame_x(p, p->frame.index);
        if (p->has_frame)
            rect(list, l->bar_x0, l->bar_y0, here - l->bar_x0, l->bar_y1 - l->bar_y0, COLOR_PLAYED);
        if (p->loop) {
            float a = frame_x(p, p->loop_first), b = frame_x(p, p->loop_last);
            rect(list, a - 1.0f * s, l->bar_y0 - 3.0f * s, b - a + 2.0f * s, l->bar_y1 - l->bar_y0 + 6.0f * s,
                 COLOR_LOOP);
        }
        if (p->loop_marked)
            rect(list, frame_x(p, p->loop_mark) - 1.0f * s, l->bar_y0 - 4.0f * s, 2.0f * s,
                 l->bar_y1 - l->bar_y0 + 8.0f * s, COLOR_LOOP_MARK);
        size_t count = 0;
        const sr_recording_message *messages = sr_recording_messages(p->recording, &count);
        // Ticks above the track; errors drawn last so that they show where ticks crowd.
        for (int level = SR_RECORD_INFO; level <= SR_RECORD_ERROR; level++)
            for (size_t i = 0; i < count; i++)
                if ((int)messages[i].level == level)
                    rect(list, floorf(frame_x(p, messages[i].frame) - 1.0f * s), l->bar_y0 - 7.0f * s, 2.0f * s,
                         6.0f * s, level_colour(messages[i].level));
        if (p->has_frame)
            rect(list, floorf(here - 1.5f * s), l->bar_y0 - 4.0f * s, 3.0f * s, l->bar_y1 - l->bar_y0 + 8.0f * s,
                 COLOR_HANDLE);
    }

    // The line of text: where, when, how, and the last message.
    char speed[32], line[512], loop[96] = "";
    viewer_speed_text(p->speed, speed, sizeof speed);
    if (p->loop)
        snprintf(loop, sizeof loop, "   loop %llu-%llu", (unsigned long long)p->loop_first,
                 (unsigned long long)p->loop_last);
    else if (p->loop_marked)
        snprintf(loop, sizeof loop, "   loop from %llu (L)", (unsigned long long)p->loop_mark);
    if (p->info->frame_count == 0)
        snprintf(line, sizeof line, "no frames recorded yet");
    else
        snprintf(line, sizeof line, "%s  frame %llu / %llu   t %.3f   %s%s", p->playing ? "playing" : "paused ",
                 (unsigned long long)p->frame.index, (unsigned long long)last_frame(p), p->frame.time, speed, loop);
    const float text_y = l->top + 7.0f * s;
    text(list, l->bar_x0, text_y, line, COLOR_TEXT, scale);
    const sr_recording_message *message = p->has_frame ? last_message(p) : NULL;
    if (message) {
        int used;
        sr_overlay_text_size(line, scale, &used, NULL);
        const float cell = 6.0f * s;
        float x = l->bar_x0 + (float)used + 4.0f * cell;
        int room = (int)floorf((l->bar_x1 - x) / cell);
        char full[600], shown[600];
        snprintf(full, sizeof full, "%llu: %s", (unsigned long long)message->frame, message->text);
        fit(shown, sizeof shown, full, room);
        if (shown[0]) {
            int message_width;
            sr_overlay_text_size(shown, scale, &message_width, NULL);
            // Right-aligned; bright on the frame it marks, dimmer after.
            uint32_t color = message->frame == p->frame.index
                                 ? level_colour(message->level)
                                 : sr_debug_color_alpha(level_colour(message->level), 0.7f);
            text(list, l->bar_x1 - (float)message_width, text_y, shown, color, scale);
        }
    }
    add_legend(p, list, width, scale);
}

bool viewer_timeline_contains(const sr_viewer *viewer, float x, float y)
{
    const viewer_playback *p = viewer->playback;
    if (!p || !p->info)
        return false;
    const playback_layout *l = &p->layout;
    if (y >= l->top && l->top > 0.0f)
        return true;
    return l->legend_rows > 0 && x >= l->legend_x0 && x < l->legend_x1 && y >= l->legend_y0 &&
           y < l->legend_y0 + (float)l->legend_rows * l->legend_row_height;
}

bool viewer_timeline_press(sr_viewer *viewer, float x, float y, bool shift)
{
    viewer_playback *p = viewer->playback;
    if (!viewer_timeline_contains(viewer, x, y))
        return false;
    playback_layout *l = &p->layout;
    if (y < l->top) {
        // A row of the legend: show or hide its list or colour.
        int row = (int)floorf((y - l->legend_y0) / l->legend_row_height);
        if (row >= 0 && row < l->legend_rows) {
            if (l->legend_row_list[row] >= 0)
                viewer_playback_toggle_list(viewer, l->legend_row_list[row]);
            else if (l->legend_row_colour[row] >= 0 && l->legend_row_colour[row] < p->colour_count)
                viewer_playback_toggle_colour(viewer, p->colours[l->legend_row_colour[row]].color);
        }
        return true;
    }
    if (!p->has_frame)
        return true;
    p->scrubbing = true;
    p->scrub_loop = shift;
    p->playing = false;
    uint64_t frame = x_frame(p, x);
    if (shift) {
        p->scrub_from = frame;
        viewer_playback_set_loop(viewer, true, frame, frame);
    } else {
        viewer_playback_seek(viewer, frame);
    }
    viewer->dirty = true;
    return true;
}

void viewer_timeline_drag(sr_viewer *viewer, float x, float y)
{
    viewer_playback *p = viewer->playback;
    (void)y;
    if (!p || !p->scrubbing)
        return;
    uint64_t frame = x_frame(p, x);
    if (p->scrub_loop)
        viewer_playback_set_loop(viewer, true, p->scrub_from, frame);
    else if (frame != p->frame.index)
        viewer_playback_seek(viewer, frame);
}

void viewer_timeline_release(sr_viewer *viewer, float x, float y)
{
    viewer_playback *p = viewer->playback;
    if (!p || !p->scrubbing)
        return;
    viewer_timeline_drag(viewer, x, y);
    p->scrubbing = false;
    if (p->scrub_loop) {
        p->scrub_loop = false;
        if (p->loop && p->loop_first == p->loop_last)
            viewer_playback_set_loop(viewer, false, 0, 0); // a shift-click, not a range
        else if (p->loop)
            viewer_say(viewer, false, "looping frames %llu to %llu (L: loop off)", (unsigned long long)p->loop_first,
                       (unsigned long long)p->loop_last);
    }
}
