/* viewer_playback_report.c — a recording's playback in words: the HUD's lines (the file's health,
 * the lists shown, what is selected and at which frame), print-state's "recording" object and
 * print-pick's selection for scripts, the speed as text and a message's level. The state they
 * describe is viewer_playback.c's. */
#include "viewer_internal.h"

#include <stdarg.h>
#include <stdio.h>

void viewer_speed_text(int speed, char *out, size_t size)
{
    if (speed >= 0)
        snprintf(out, size, "%gx", playback_speed_factor(speed));
    else
        snprintf(out, size, "1/%gx", playback_speed_factor(-speed));
}

const char *viewer_level_name(sr_record_level level)
{
    return level == SR_RECORD_ERROR ? "error" : level == SR_RECORD_WARNING ? "warning" : "info";
}

/* Appends printf output to `text` (size bytes, `*used` of them filled). */
static void append(char *text, size_t size, size_t *used, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *text, size_t size, size_t *used, const char *format, ...)
{
    if (*used >= size)
        return;
    va_list args;
    va_start(args, format);
    int n = vsnprintf(text + *used, size - *used, format, args);
    va_end(args);
    if (n > 0)
        *used = (size_t)n < size - *used ? *used + (size_t)n : size - 1;
}

static const char *list_name(const viewer_playback *p, size_t list)
{
    return list < p->info->list_count && p->info->list_names ? p->info->list_names[list] : "";
}

void viewer_playback_hud(const sr_viewer *viewer, char *text, size_t size)
{
    const viewer_playback *p = viewer->playback;
    size_t used = 0;
    text[0] = '\0';
    if (!p || !p->info)
        return;
    if (p->info->truncated || !p->info->closed_cleanly)
        append(text, size, &used, "recording not closed: %llu frames readable\n",
               (unsigned long long)p->info->frame_count);
    if (p->seek_error[0])
        append(text, size, &used, "cannot read %.200s\n", p->seek_error);
    size_t shown = 0, item_count = 0;
    for (size_t l = 0; l < p->frame.list_count; l++)
        if (!playback_list_hidden(p, l)) {
            shown++;
            item_count += sr_debug_list_get_stats(p->frame.lists[l]).items;
        }
    append(text, size, &used, "recorded lists: %zu of %zu, %zu items\n", shown, p->frame.list_count, item_count);
    size_t hidden = 0;
    for (size_t l = 0; l < p->frame.list_count; l++)
        hidden += playback_list_hidden(p, l);
    if (hidden || p->hidden_colour_count)
        append(text, size, &used, "hidden: %zu list%s, %d colour%s (0 shows all)\n", hidden, hidden == 1 ? "" : "s",
               p->hidden_colour_count, p->hidden_colour_count == 1 ? "" : "s");
    const playback_selection *s = &p->selection;
    if (s->kind == PLAYBACK_SELECTED_ITEM) {
        char what[512];
        if (s->item_here && s->item.list < p->frame.list_count) {
            const sr_debug_list *list = p->frame.lists[s->item.list];
            size_t count = 0;
            const sr_debug_item *items = sr_debug_list_items(list, &count);
            viewer_item_describe(list, &items[s->item.index], what, sizeof what);
            append(text, size, &used, "selected %s\n  list '%.40s' item %u, frame %llu\n", what,
                   list_name(p, s->item.list), s->item.index, (unsigned long long)p->frame.index);
        } else {
            append(text, size, &used, "selected %s of list '%.40s'\n  (picked at frame %llu):\n  none like it here\n",
                   viewer_item_kind_name(s->item.item.kind), list_name(p, s->item.list),
                   (unsigned long long)s->picked_frame);
        }
    } else if (s->kind == PLAYBACK_SELECTED_NODE && s->picked_frame != p->frame.index) {
        sr_node_info info;
        if (s->node.generation != 0 && sr_scene_node(viewer->scene, s->node, &info, NULL) == SR_OK) {
            sr_vec3 c = sr_vec3_scale(sr_vec3_add(info.world_aabb.min, info.world_aabb.max), 0.5f);
            append(text, size, &used, "selected node '%.40s'\n  box centre (%.4g, %.4g, %.4g)\n", info.name,
                   (double)c.x, (double)c.y, (double)c.z);
        } else {
            append(text, size, &used, "selected node (picked at\n  frame %llu): not in this frame\n",
                   (unsigned long long)s->picked_frame);
        }
    }
    append(text, size, &used, "K: lists and colours");
}

static void print_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void print_colour(FILE *out, uint32_t c)
{
    fprintf(out, "\"#%02x%02x%02x%02x\"", c & 0xffu, c >> 8 & 0xffu, c >> 16 & 0xffu, c >> 24);
}

void viewer_playback_print_state(const sr_viewer *viewer, FILE *out)
{
    const viewer_playback *p = viewer->playback;
    if (!p || !p->info) {
        fputs("null", out);
        return;
    }
    char speed[32];
    viewer_speed_text(p->speed, speed, sizeof speed);
    fputs("{\"path\": ", out);
    print_string(out, p->path);
    fputs(", \"title\": ", out);
    print_string(out, p->info->title);
    fprintf(out,
            ", \"frames\": %llu, \"frame\": %llu, \"time\": %.9g, \"first_time\": %.9g, \"last_time\": %.9g"
            ", \"playing\": %s, \"speed\": %.9g, \"speed_text\": \"%s\", \"loop\": ",
            (unsigned long long)playback_frame_count(p), (unsigned long long)p->frame.index, p->frame.time,
            p->info->first_time, p->info->last_time, p->playing ? "true" : "false", playback_speed_factor(p->speed),
            speed);
    if (p->loop)
        fprintf(out, "[%llu, %llu]", (unsigned long long)p->loop_first, (unsigned long long)p->loop_last);
    else
        fputs("null", out);
    fputs(", \"loop_mark\": ", out);
    if (p->loop_marked)
        fprintf(out, "%llu", (unsigned long long)p->loop_mark);
    else
        fputs("null", out);
    fprintf(out, ", \"closed_cleanly\": %s, \"truncated\": %s, \"has_scene\": %s, \"seek_error\": ",
            p->info->closed_cleanly ? "true" : "false", p->info->truncated ? "true" : "false",
            p->frame.scene ? "true" : "false");
    print_string(out, p->seek_error);
    fputs(", \"lists\": [", out);
    for (size_t l = 0; l < p->info->list_count; l++) {
        size_t items = l < p->frame.list_count ? sr_debug_list_get_stats(p->frame.lists[l]).items : 0;
        fprintf(out, "%s{\"name\": ", l ? ", " : "");
        print_string(out, list_name(p, l));
        fprintf(out, ", \"shown\": %s, \"items\": %zu}", playback_list_hidden(p, l) ? "false" : "true", items);
    }
    fputs("], \"colours\": [", out);
    for (int c = 0; c < p->colour_count; c++) {
        fprintf(out, "%s{\"colour\": ", c ? ", " : "");
        print_colour(out, p->colours[c].color);
        fprintf(out, ", \"shown\": %s, \"items\": %zu}",
                playback_colour_hidden(p, p->colours[c].color) ? "false" : "true", p->colours[c].items);
    }
    fprintf(out, "], \"legend\": %s, \"messages\": [", p->legend ? "true" : "false");
    size_t count = 0;
    const sr_recording_message *messages = sr_recording_messages(p->recording, &count);
    for (size_t i = 0; i < p->frame.message_count && p->frame.message_first + i < count; i++) {
        const sr_recording_message *m = &messages[p->frame.message_first + i];
        fprintf(out, "%s{\"frame\": %llu, \"level\": \"%s\", \"text\": ", i ? ", " : "", (unsigned long long)m->frame,
                viewer_level_name(m->level));
        print_string(out, m->text);
        fputc('}', out);
    }
    const playback_layout *layout = &p->layout;
    fprintf(out,
            "], \"message_count\": %zu, \"timeline\": {\"top\": %.9g, \"bar\": [%.9g, %.9g, %.9g, %.9g]"
            ", \"legend_rows\": {\"x\": [%.9g, %.9g], \"top\": %.9g, \"height\": %.9g, \"count\": %d}}"
            ", \"selected\": \"%s\"}",
            count, (double)layout->top, (double)layout->bar_x0, (double)layout->bar_y0, (double)layout->bar_x1,
            (double)layout->bar_y1, (double)layout->legend_x0, (double)layout->legend_x1, (double)layout->legend_y0,
            (double)layout->legend_row_height, layout->legend_rows,
            p->selection.kind == PLAYBACK_SELECTED_ITEM   ? "item"
            : p->selection.kind == PLAYBACK_SELECTED_NODE ? "node"
                                                          : "none");
}

static void print_vec3(FILE *out, sr_vec3 v)
{
    fprintf(out, "[%.9g, %.9g, %.9g]", (double)v.x, (double)v.y, (double)v.z);
}

void viewer_playback_print_pick(const sr_viewer *viewer, FILE *out)
{
    const viewer_playback *p = viewer->playback;
    const playback_selection *s = &p->selection;
    fprintf(out, "{\"frame\": %llu, \"time\": %.9g, \"selected\": \"%s\", \"picked_frame\": %llu",
            (unsigned long long)p->frame.index, p->frame.time,
            s->kind == PLAYBACK_SELECTED_ITEM   ? "item"
            : s->kind == PLAYBACK_SELECTED_NODE ? "node"
                                                : "none",
            (unsigned long long)s->picked_frame);
    if (s->kind == PLAYBACK_SELECTED_ITEM) {
        fprintf(out, ", \"here\": %s", s->item_here ? "true" : "false");
        fprintf(out, ", \"item\": {\"list\": %u, \"list_name\": ", s->item.list);
        print_string(out, list_name(p, s->item.list));
        fprintf(out, ", \"index\": %u, \"kind\": \"%s\", \"colour\": ", s->item.index,
                viewer_item_kind_name(s->item.item.kind));
        print_colour(out, playback_item_colour(&s->item.item));
        bool is_2d = false;
        sr_vec3 at = s->item.position;
        char what[512] = "";
        if (s->item_here && s->item.list < p->frame.list_count) {
            const sr_debug_list *list = p->frame.lists[s->item.list];
            size_t count = 0;
            const sr_debug_item *items = sr_debug_list_items(list, &count);
            if (s->item.index < count) {
                at = viewer_item_position(list, &items[s->item.index], &is_2d);
                viewer_item_describe(list, &items[s->item.index], what, sizeof what);
            }
        }
        fputs(", \"position\": ", out);
        print_vec3(out, at);
        fprintf(out, ", \"is_2d\": %s, \"description\": ", is_2d ? "true" : "false");
        print_string(out, what);
        fputc('}', out);
    } else if (s->kind == PLAYBACK_SELECTED_NODE) {
        fprintf(out, ", \"here\": %s, \"node\": {\"source\": [%u, %u]", s->node.generation != 0 ? "true" : "false",
                s->source_node.index, s->source_node.generation);
        sr_node_info info;
        if (s->node.generation != 0 && viewer->scene && sr_scene_node(viewer->scene, s->node, &info, NULL) == SR_OK) {
            fprintf(out, ", \"index\": %u, \"name\": ", s->node.index);
            print_string(out, info.name);
            fputs(", \"box\": [", out);
            print_vec3(out, info.world_aabb.min);
            fputs(", ", out);
            print_vec3(out, info.world_aabb.max);
            fputc(']', out);
        }
        fputc('}', out);
    }
    fputs("}\n", out);
}
