/* src/record/record_check.c — sr_recording_check: every record of a recording read and checked,
 * in file order: its length and checksum, each frame's lists decoded item by item, its state
 * applied to the state before it, the definitions parsed, and, for a file closed cleanly, the
 * index against what the records say. The outcome is one of clean, truncated (a writer that
 * stopped: every complete frame readable) or damaged (a corrupt record among valid ones), with
 * exact byte counts by kind. */
#include "record_reader.h"

#include <stdio.h>

/* The bytes of a STATE record's sections, split into views (camera, light, background, scene)
 * and nodes; false when the sections do not hold together. */
static bool state_sizes(const uint8_t *payload, size_t size, sr_record_sizes *sizes)
{
    rec_cursor c = rec_cursor_make(payload, size);
    rec_get_varint(&c);
    rec_get_u8(&c);
    size_t head = size - rec_left(&c);
    sizes->framing += head;
    while (rec_left(&c)) {
        const uint8_t *start = c.p;
        uint32_t tag = rec_get_u8(&c);
        size_t length = (size_t)rec_get_count(&c, rec_left(&c));
        if (!rec_take(&c, length))
            return false;
        uint64_t bytes = (uint64_t)(c.p - start);
        if (tag >= REC_SECTION_REMOVED && tag <= REC_SECTION_CHANGED)
            sizes->nodes += bytes;
        else if (tag == REC_SECTION_SHAPES)
            sizes->shapes += bytes;
        else if (tag >= REC_SECTION_CAMERA && tag <= REC_SECTION_SCENE)
            sizes->views += bytes;
        else
            sizes->framing += bytes;
    }
    return !c.bad;
}

/* Decodes a FRAME record's lists (checking every item); counts their bytes. */
static bool frame_valid(sr_recording *rec, const uint8_t *payload, size_t size, uint64_t frame, sr_record_sizes *sizes,
                        char *why, size_t why_size)
{
    rec_cursor c = rec_cursor_make(payload, size);
    uint64_t recorded = rec_get_varint(&c);
    rec_get_f64(&c);
    size_t count = (size_t)rec_get_count(&c, REC_MAX_LISTS);
    if (c.bad || recorded != frame) {
        snprintf(why, why_size, "its frame record is malformed (it says frame %llu)", (unsigned long long)recorded);
        return false;
    }
    sizes->framing += size - rec_left(&c);
    for (size_t i = 0; i < count; i++) {
        uint32_t items = rec_get_u32(&c), bytes = rec_get_u32(&c);
        const uint8_t *list = rec_take(&c, bytes);
        if (!list) {
            snprintf(why, why_size, "list %zu is cut short", i);
            return false;
        }
        sizes->framing += 8;
        rec_cursor l = rec_cursor_make(list, bytes);
        char what[256];
        if (rec_list_decode(&l, items, NULL, &rec->scratch, sizes, what, sizeof what) != SR_OK) {
            snprintf(why, why_size, "list %zu, %.200s", i, what);
            return false;
        }
        if (rec_left(&l)) {
            snprintf(why, why_size, "list %zu: %zu bytes follow its items", i, rec_left(&l));
            return false;
        }
    }
    if (rec_left(&c)) {
        snprintf(why, why_size, "%zu bytes follow its lists", rec_left(&c));
        return false;
    }
    return true;
}

/* Whether a valid record starts at `offset` (used to tell damage in the middle from a torn tail). */
static bool valid_record_at(sr_recording *rec, uint64_t offset, sr_error *err)
{
    if (offset + REC_RECORD_OVERHEAD > rec->file_size)
        return false;
    if (rec_read_at(rec, offset, REC_RECORD_HEAD, &rec->buffer, &rec->buffer_capacity, err) != SR_OK)
        return false;
    uint64_t total = (uint64_t)rec_load_u32(rec->buffer + 1) + REC_RECORD_OVERHEAD;
    if (total > rec->file_size - offset ||
        rec_read_at(rec, offset, (size_t)total, &rec->buffer, &rec->buffer_capacity, err) != SR_OK)
        return false;
    uint32_t type, size;
    const uint8_t *payload;
    char why[64];
    return rec_record_check(rec->buffer, (size_t)total, &type, &payload, &size, why, sizeof why);
}

sr_status sr_recording_check(const char *path, const sr_recording_desc *desc, sr_recording_check_report *report,
                             sr_error *err)
{
    if (!report)
        return sr_error_set(err, SR_ERROR_INVALID_ARGUMENT, "sr_recording_check: report is NULL");
    *report = (sr_recording_check_report){.first_bad_offset = UINT64_MAX};
    sr_recording *rec = NULL;
    sr_status status = rec_open(path, desc, true, &rec, err);
    if (status != SR_OK)
        return status;
    bool indexed = rec->info.closed_cleanly;
    uint64_t end = indexed ? rec->file_size - REC_TRAILER_SIZE : rec->file_size;
    report->bytes.framing = rec->header.size;
    rec_scene_reader state = {0};
    uint64_t offset = rec->header.size, frame = 0, index_offset = UINT64_MAX;
    uint64_t frame_start = offset;
    bool frame_open = false, frame_bad = false, stopped = false;
    char problem[300] = "";
    char stage[300];
    snprintf(stage, sizeof stage, "checking %s", path);
    uint64_t reported = offset;

    while (offset < end) {
        uint64_t left = end - offset;
        uint64_t total = REC_RECORD_OVERHEAD;
        bool ok = left >= REC_RECORD_OVERHEAD;
        if (ok &&
            (status = rec_read_at(rec, offset, REC_RECORD_HEAD, &rec->buffer, &rec->buffer_capacity, err)) != SR_OK)
            break;
        if (ok) {
            total = (uint64_t)rec_load_u32(rec->buffer + 1) + REC_RECORD_OVERHEAD;
            ok = total <= left;
        }
        uint32_t type = 0, size = 0;
        const uint8_t *payload = NULL;
        char why[256] = "";
        if (!ok) {
            snprintf(why, sizeof why, "%llu bytes at offset %llu are an incomplete record", (unsigned long long)left,
                     (unsigned long long)offset);
        } else {
            if ((status = rec_read_at(rec, offset, (size_t)total, &rec->buffer, &rec->buffer_capacity, err)) != SR_OK)
                break;
            ok = rec_record_check(rec->buffer, (size_t)total, &type, &payload, &size, why, sizeof why);
        }
        report->records++;
        // This record's bytes, added to the report's only when it is valid (a bad one's all count
        // as framing).
        sr_record_sizes record_sizes = {0};
        sr_record_sizes *sizes = &record_sizes;
        if (ok) {
            sizes->framing += REC_RECORD_OVERHEAD;
            switch (type) {
            case REC_STATE: {
                frame_open = true;
                frame_start = offset;
                char what[256];
                if (!state_sizes(payload, size, sizes) ||
                    rec_state_apply(&state, payload, size, frame, what, sizeof what) != SR_OK) {
                    snprintf(why, sizeof why, "frame %llu's state: %.200s", (unsigned long long)frame, what);
                    ok = false;
                }
                break;
            }
            case REC_FRAME: {
                char what[256];
                if (!frame_open)
                    frame_start = offset;
                // After damage, frames may have been lost with it: go on from the number this one says.
                rec_cursor peek = rec_cursor_make(payload, size);
                uint64_t says = rec_get_varint(&peek);
                if (report->bad_records && !peek.bad && says > frame)
                    frame = says;
                if (frame_bad || !frame_valid(rec, payload, size, frame, sizes, what, sizeof what)) {
                    if (!frame_bad)
                        snprintf(why, sizeof why, "frame %llu: %.200s", (unsigned long long)frame, what);
                    ok = frame_bad ? true : false;
                } else {
                    if (indexed && (frame >= rec->frame_count || rec->frames[frame].offset != frame_start ||
                                    rec->frames[frame].length != offset + total - frame_start)) {
                        snprintf(why, sizeof why, "frame %llu is not where the index says", (unsigned long long)frame);
                        ok = false;
                    } else {
                        report->frames++;
                    }
                }
                frame++;
                frame_open = frame_bad = false;
                break;
            }
            case REC_MESH:
                sizes->meshes += total;
                sizes->framing -= REC_RECORD_OVERHEAD;
                break;
            case REC_TEXTURE:
                sizes->textures += total;
                sizes->framing -= REC_RECORD_OVERHEAD;
                break;
            case REC_MATERIAL:
                sizes->materials += total;
                sizes->framing -= REC_RECORD_OVERHEAD;
                break;
            case REC_HULL: {
                char what[200];
                if (!rec_hull_check(payload, size, what, sizeof what)) {
                    snprintf(why, sizeof why, "a hull's definition: %.200s", what);
                    ok = false;
                }
                sizes->shapes += total;
                sizes->framing -= REC_RECORD_OVERHEAD;
                break;
            }
            case REC_MESSAGE:
                sizes->messages += total;
                sizes->framing -= REC_RECORD_OVERHEAD;
                break;
            case REC_INDEX:
                index_offset = offset;
                sizes->framing += size;
                if (!indexed) {
                    snprintf(why, sizeof why, "an index at offset %llu without a valid trailer",
                             (unsigned long long)offset);
                    ok = false;
                }
                break;
            default:
                report->unknown_records++;
                sizes->framing += size;
                break;
            }
        }
        if (ok)
            rec_sizes_add(&report->bytes, &record_sizes);
        else
            report->bytes.framing += total <= left ? total : left;
        if (!ok) {
            report->bad_records++;
            if (report->first_bad_offset == UINT64_MAX) {
                report->first_bad_offset = offset;
                snprintf(problem, sizeof problem, "%s", why);
            }
            uint32_t guessed = total <= left ? rec->buffer[0] : 0; // the type byte, if it is one
            if (frame_open || guessed == REC_STATE)
                frame_bad = true; // the frame's lists are lost with its state
            if (guessed == REC_FRAME && !frame_bad)
                frame++, frame_open = false;
            // Go on after it when its length leads to a valid record; otherwise this is where the
            // readable part ends.
            if (total <= left && offset + total < end && valid_record_at(rec, offset + total, err)) {
                offset += total;
                continue;
            }
            stopped = true;
            break;
        }
        offset += total;
        if (desc && desc->progress && offset - reported > ((uint64_t)64 << 20)) {
            reported = offset;
            if (!desc->progress(desc->user, stage, (double)offset / (double)rec->file_size)) {
                status = sr_error_set(err, SR_ERROR_CANCELLED, "%s: check cancelled", path);
                break;
            }
        }
    }
    if (status == SR_OK) {
        if (indexed) {
            report->bytes.framing += REC_TRAILER_SIZE;
            if (!report->bad_records && (index_offset == UINT64_MAX || frame != rec->frame_count)) {
                report->bad_records++;
                snprintf(problem, sizeof problem, "the index lists %llu frames, the records hold %llu",
                         (unsigned long long)rec->frame_count, (unsigned long long)frame);
            }
        }
        report->bytes.total = rec_sizes_sum(&report->bytes);
        // A file without a trailer whose only problem is at its end was cut short (a writer that
        // was killed); a problem followed by valid records, or in a file closed cleanly, is damage.
        bool tail_only = stopped && !indexed && report->bad_records == 1;
        if (!report->bad_records && indexed) {
            report->health = SR_RECORDING_CLEAN;
            snprintf(report->message, sizeof report->message,
                     "clean: %llu frames, %llu records checked, closed cleanly (%llu bytes)",
                     (unsigned long long)report->frames, (unsigned long long)report->records,
                     (unsigned long long)rec->file_size);
        } else if (!report->bad_records || tail_only) {
            report->health = SR_RECORDING_TRUNCATED;
            // What follows the last readable record, as the open counted it (info.readable_bytes):
            // a torn record and the complete records of its unfinished frame before it.
            uint64_t kept = report->bad_records ? report->first_bad_offset : rec->file_size;
            if (rec->info.readable_bytes < kept)
                kept = rec->info.readable_bytes;
            snprintf(report->message, sizeof report->message,
                     "truncated: %llu frames readable; the writer did not close the file%s%s (%llu bytes ignored)",
                     (unsigned long long)report->frames, problem[0] ? "; " : "", problem,
                     (unsigned long long)(rec->file_size - kept));
        } else {
            report->health = SR_RECORDING_DAMAGED;
            snprintf(report->message, sizeof report->message,
                     "damaged: %llu frames readable of %llu; %llu bad records, the first at offset %llu: %s",
                     (unsigned long long)report->frames, (unsigned long long)frame + (stopped ? 1 : 0),
                     (unsigned long long)report->bad_records, (unsigned long long)report->first_bad_offset, problem);
        }
    }
    rec_scene_reader_free(&state);
    sr_recording_destroy(rec);
    if (status == SR_OK)
        sr_error_clear(err);
    return status;
}
