/* rtframe: what rtframesink posts - the bus messages about frames and
 * files, and its errors (its statistics: gstrtframefigures.c and
 * gstrtframestats.c).  Every field is documented in docs/reference.md. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframemessages.h"
#include "rtf-pattern.h"
#include "gstrtframesink-private.h"

#include <errno.h>

#define GST_CAT_DEFAULT gst_rtframe_sink_debug

static const gchar *
where_name (RtfFrameState where)
{
  switch (where) {
    case RTF_FRAME_WAITING:
      return "waiting";
    case RTF_FRAME_QUEUED:
      return "queued";
    case RTF_FRAME_IN_FLIGHT:
      return "in-flight";
    case RTF_FRAME_DROPPED:
      return "dropped";
    default:
      return "written";
  }
}

/* A CLOCK_MONOTONIC time as a GstClockTime of GStreamer's system clock
 * (monotonic by default: gst_clock_get_time (gst_system_clock_obtain ())
 * reads the same clock); every time and duration the messages carry is a
 * guint64 (issue 26: they mixed gint64 and GstClockTime), but for the
 * signed lateness */
static guint64
clock_time (gint64 ns)
{
  return ns >= 0 ? (guint64) ns : 0;
}

static void
set_frame_fields (GstStructure * s, const RtfFrameReport * m)
{
  gst_structure_set (s,
      "frame", G_TYPE_UINT64, m->seq,
      "pts", G_TYPE_UINT64, m->times.pts,
      "duration", G_TYPE_UINT64, m->times.duration,
      "running-time", G_TYPE_UINT64, m->times.running_time,
      "size", G_TYPE_UINT64, (guint64) m->size,
      "arrival", G_TYPE_UINT64, clock_time (m->times.arrival_ns),
      /* (no deadline: deadline=0) */
      "deadline", G_TYPE_UINT64, m->times.deadline_ns != 0 ?
      clock_time (m->times.deadline_ns) : GST_CLOCK_TIME_NONE,
      "prerecorded", G_TYPE_BOOLEAN, rtf_frame_prerecorded (m->flags), NULL);
}

GstMessage *
gst_rtframe_message_missed (GstObject * src, const RtfFrameReport * m)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_MISSED);

  set_frame_fields (s, m);
  gst_structure_set (s,
      "detected", G_TYPE_UINT64, clock_time (m->detected_ns),
      "lateness", G_TYPE_INT64, m->detected_ns - m->times.deadline_ns,
      "where", G_TYPE_STRING, where_name (m->where),
      "queued-frames", G_TYPE_UINT, m->queued_frames,
      "queued-bytes", G_TYPE_UINT64, m->queued_bytes,
      "in-flight-frames", G_TYPE_UINT, m->held_frames - m->queued_frames, NULL);
  return gst_message_new_element (src, s);
}

GstMessage *
gst_rtframe_message_late (GstObject * src, const RtfFrameReport * m)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_LATE);

  set_frame_fields (s, m);
  gst_structure_set (s,
      "completed", G_TYPE_UINT64, clock_time (m->detected_ns),
      "latency", G_TYPE_UINT64, clock_time (m->detected_ns -
          m->times.arrival_ns),
      "lateness", G_TYPE_INT64, m->detected_ns - m->times.deadline_ns, NULL);
  return gst_message_new_element (src, s);
}

GstMessage *
gst_rtframe_message_written (GstObject * src, const RtfEvent * e)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_WRITTEN);
  const RtfFrameReport *m = &e->report;

  set_frame_fields (s, m);
  gst_structure_set (s,
      "offset", G_TYPE_UINT64, e->u.written.offset,
      "submitted", G_TYPE_UINT64, clock_time (e->u.written.submit_ns),
      "completed", G_TYPE_UINT64, clock_time (m->detected_ns),
      "latency", G_TYPE_UINT64, clock_time (m->detected_ns -
          m->times.arrival_ns),
      "device-latency", G_TYPE_UINT64, clock_time (m->detected_ns -
          e->u.written.submit_ns),
      "missed", G_TYPE_BOOLEAN, m->times.deadline_ns != 0
      && m->detected_ns > m->times.deadline_ns,
      "copied", G_TYPE_BOOLEAN, e->u.written.copied,
      "file-index", G_TYPE_UINT64, e->u.written.file,
      "location-index", G_TYPE_UINT, e->u.written.location, NULL);
  return gst_message_new_element (src, s);
}

/* rtframesink-upstream-gap: the frame after the gap, and the gap */
GstMessage *
gst_rtframe_message_upstream_gap (GstObject * src, const RtfEvent * e)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_UPSTREAM_GAP);
  const RtfFrameOrigin *o = &e->u.upstream;

  set_frame_fields (s, &e->report);
  gst_structure_set (s,
      "offset", G_TYPE_UINT64, o->offset,
      "missing", G_TYPE_UINT64, o->gap.missing,
      "first-missing-offset", G_TYPE_UINT64, o->gap.first_offset,
      "first-missing-pts", G_TYPE_UINT64, o->gap.first_pts,
      "detected-by", G_TYPE_STRING, rtf_gap_how_name (o->gap.how), NULL);
  return gst_message_new_element (src, s);
}

/* Like GstBaseSink's QoS message for a frame it dropped. */
GstMessage *
gst_rtframe_message_qos_drop (GstObject * src, const RtfFrameReport * m,
    guint64 processed, guint64 dropped)
{
  GstMessage *msg;
  gint64 jitter = m->detected_ns - m->times.deadline_ns;

  msg =
      gst_message_new_qos (src, FALSE, m->times.running_time,
      m->times.stream_time, m->times.pts, m->times.duration);
  gst_message_set_qos_values (msg, jitter, 1.0, 1000000);
  gst_message_set_qos_stats (msg, GST_FORMAT_BUFFERS, processed, dropped);
  return msg;
}

/* rtframesink-recording-started: what the writer told of its first
 * frame, what it was asked with */
GstStructure *
gst_rtframe_structure_recording_started (const GstRtFrameRecordAsk * a,
    const RtfRecordingInfo * info, guint64 number)
{
  GstStructure *s = gst_structure_new (GST_RTFRAME_MSG_RECORDING_STARTED,
      "number", G_TYPE_UINT64, number,
      "running-time", G_TYPE_UINT64, a->start_asked,
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "first-running-time", G_TYPE_UINT64, info->first_running_time,
      "prerecorded-frames", G_TYPE_UINT64, (guint64) a->prerecorded,
      "prerecorded-from", G_TYPE_UINT64, a->prerecorded_from,
      "serial", G_TYPE_UINT64, a->serial, "id", G_TYPE_STRING, a->id,
      "location-index", G_TYPE_UINT, info->location, NULL);

  gst_rtframe_structure_set_path (s, "location", info->path);
  return s;
}

/* rtframesink-recording-stopped: the figures of all of it */
GstStructure *
gst_rtframe_structure_recording_stopped (const GstRtFrameRecordAsk * a,
    const RtfRecordingInfo * info, guint64 number)
{
  GstStructure *s = gst_structure_new (GST_RTFRAME_MSG_RECORDING_STOPPED,
      "number", G_TYPE_UINT64, number,
      "running-time", G_TYPE_UINT64, a->stop_asked,
      "reason", G_TYPE_STRING, a->stop_reason ? a->stop_reason : "end",
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "last-frame", G_TYPE_UINT64, info->last_seq,
      "last-running-time", G_TYPE_UINT64, info->last_running_time,
      "frames", G_TYPE_UINT64, info->frames,
      "bytes", G_TYPE_UINT64, info->bytes,
      "prerecorded-frames", G_TYPE_UINT64, info->prerecorded,
      "frames-lost", G_TYPE_UINT64, info->lost,
      "serial", G_TYPE_UINT64, a->serial, "id", G_TYPE_STRING, a->id,
      "location-index", G_TYPE_UINT, info->location, NULL);

  gst_rtframe_structure_set_path (s, "location", info->path);
  return s;
}

/* rtframesink-file-opened / rtframesink-file-closed */
GstMessage *
gst_rtframe_message_file (GstObject * src, gboolean opened,
    const RtfFileInfo * info)
{
  GstStructure *s = gst_structure_new_empty (opened ?
      GST_RTFRAME_MSG_FILE_OPENED : GST_RTFRAME_MSG_FILE_CLOSED);

  gst_rtframe_structure_set_path (s, "location", info->path);
  gst_rtframe_structure_set_path (s, "index-location", info->index_path);
  gst_structure_set (s,
      "index", G_TYPE_UINT64, info->number,
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "first-running-time", G_TYPE_UINT64, info->first_running_time,
      /* (the same: the name before issue 26, kept for applications) */
      "running-time", G_TYPE_UINT64, info->first_running_time,
      "location-index", G_TYPE_UINT, info->location, NULL);

  if (!opened) {
    gst_structure_set (s,
        "last-frame", G_TYPE_UINT64, info->last_seq,
        "last-running-time", G_TYPE_UINT64, info->last_running_time,
        "frames", G_TYPE_UINT64, info->frames,
        "bytes", G_TYPE_UINT64, info->bytes,
        "error", G_TYPE_STRING, info->error ? g_strerror (info->error) : NULL,
        NULL);
  }
  return gst_message_new_element (src, s);
}

/* rtframesink-file-deleted: a closed file of a rotated recording, for
 * max-files or min-free-space */
GstMessage *
gst_rtframe_message_file_deleted (GstObject * src, const RtfFileDeleted * info)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_FILE_DELETED);

  gst_rtframe_structure_set_path (s, "location", info->path);
  gst_rtframe_structure_set_path (s, "index-location", info->index_path);
  gst_structure_set (s,
      "index", G_TYPE_UINT64, info->number,
      "reason", G_TYPE_STRING, rtf_delete_reason_name (info->reason),
      "frames", G_TYPE_UINT64, info->frames,
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "last-frame", G_TYPE_UINT64, info->last_seq,
      "bytes", G_TYPE_UINT64, info->bytes,
      "freed", G_TYPE_UINT64, info->freed, NULL);
  return gst_message_new_element (src, s);
}

/* rtframesink-file-kept: a ring's file now in a recording's directory */
GstMessage *
gst_rtframe_message_file_kept (GstObject * src, const RtfFileKept * info)
{
  GstStructure *s = gst_structure_new (GST_RTFRAME_MSG_FILE_KEPT,
      "number", G_TYPE_UINT64, info->keep,
      "index", G_TYPE_UINT64, info->number,
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "last-frame", G_TYPE_UINT64, info->last_seq, NULL);

  gst_rtframe_structure_set_path (s, "location", info->kept_path);
  gst_rtframe_structure_set_path (s, "ring-location", info->path);
  gst_rtframe_structure_set_path (s, "directory", info->dir);
  return gst_message_new_element (src, s);
}

/* rtframesink-disk-space: the free space crossed a level */
GstMessage *
gst_rtframe_message_disk_space (GstObject * src, const RtfSpaceReport * r)
{
  GstStructure *s = gst_structure_new (GST_RTFRAME_MSG_DISK_SPACE,
      "level", G_TYPE_STRING, rtf_space_level_name (r->level),
      "previous-level", G_TYPE_STRING, rtf_space_level_name (r->previous),
      "free-space", G_TYPE_UINT64, r->free,
      "min-free-space", G_TYPE_UINT64, r->min_free,
      "write-rate", G_TYPE_UINT64, r->rate,
      "time-left", G_TYPE_UINT64, r->time_left == RTF_SPACE_UNKNOWN ?
      GST_CLOCK_TIME_NONE : r->time_left,
      "filesystem-free", G_TYPE_UINT64, r->fs_free,
      "reserved", G_TYPE_UINT64, r->reserved,
      "detected", G_TYPE_UINT64, clock_time (r->detected_ns),
      NULL);

  return gst_message_new_element (src, s);
}

/* ---- posted by the reporter ------------------------------------------- */

/* Queues msg for the reporter task, which posts it in order with the
 * others (a writer's thread never posts on the bus itself) */
void
gst_rtframe_sink_queue_message (GstRtFrameSink * self, GstMessage * msg)
{
  g_mutex_lock (&self->file_messages_lock);
  g_queue_push_tail (&self->file_messages, msg);
  g_mutex_unlock (&self->file_messages_lock);
  rtf_events_wake (self->events);
}

/* ---- errors ------------------------------------------------------------ */

static const gchar *
step_name (RtfFailStep step)
{
  static const gchar *names[] = { "write", "sync", "open", "xflags", "index",
    "space", "extent size hint"
  };

  return names[step];
}

/* One RESOURCE error (OPEN_WRITE, or BUSY when the file is being
 * written), the same words whenever it happens; `detail` (may be NULL) for
 * the debug text. */
void
gst_rtframe_sink_post_open_error (GstRtFrameSink * self, RtfFailStep step,
    const gchar * path, gint err, RtfDirectMode direct,
    const RtfXflags * xflags, const gchar * detail)
{
  const gchar *e = g_strerror (err);
  gchar *dbg = g_strdup_printf ("%s: %s%s%s", step_name (step), e,
      detail ? "; " : "", detail ? detail : "");
  gchar *what;

  if (err == EWOULDBLOCK) {
    /* the lock every recording holds on its files (rtf-file.c) */
    GST_ELEMENT_ERROR (self, RESOURCE, BUSY,
        ("Cannot record to \"%s\": it is being written by another "
            "recording (another pipeline or process, or an earlier recording "
            "of this one whose writes are still stalled in the kernel) or "
            "repaired by rtframe-recover.", path), ("%s", dbg));
  } else if (step == RTF_FAIL_XFLAGS && err == ENOTTY
      && (xflags->realtime || xflags->extent_size)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot set XFS file flags (realtime, extent-size-hint) on \"%s\": "
            "it is not a regular file.", path), ("%s", dbg));
  } else if (step == RTF_FAIL_XFLAGS && xflags->realtime
      && (err == EINVAL || err == ENOTSUP || err == EOPNOTSUPP)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not make file \"%s\" an XFS realtime file (realtime=true): "
            "the filesystem has no realtime section, is not XFS, or the "
            "kernel lacks XFS realtime support.", path),
        ("FS_IOC_FSSETXATTR(FS_XFLAG_REALTIME): %s", dbg));
  } else if (step == RTF_FAIL_XFLAGS || step == RTF_FAIL_HINT) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not set an extent size hint of %" G_GUINT64_FORMAT
            " bytes on file \"%s\": the filesystem is not XFS or the hint "
            "is no multiple of its block size%s.", xflags->extent_size, path,
            xflags->realtime ? " (on a realtime file: of the realtime "
            "extent size, xfs_info's \"realtime ... extsz\")" : ""),
        ("FS_IOC_FSSETXATTR(FS_XFLAG_EXTSIZE): %s", dbg));
  } else if (step == RTF_FAIL_INDEX && (err == EEXIST || err == ELOOP)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not create the index of file \"%s\": \"%s%s\" %s; remove "
            "it, or record with index=false.", path, path, RTF_INDEX_SUFFIX,
            err == ELOOP ? "is a symbolic link (never followed)" :
            "exists and is not an rtframe index"), ("%s", dbg));
  } else if (step == RTF_FAIL_INDEX) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not create the index of file \"%s\": %s.", path, e),
        ("%s", dbg));
  } else if (err == ELOOP) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": it is a symbolic link, and rtframesink "
            "never writes through one (name the file it points to).", path),
        ("%s", dbg));
  } else if (err == EEXIST && (what = rtf_file_refusal (path)) != NULL) {
    /* an rtframe index or a manifest is never a recording's data */
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": it %s; not replaced.", path, what),
        ("%s", dbg));
    g_free (what);
  } else if (err == EEXIST && self->location
      && rtf_pattern_is_timed (self->location)) {
    /* (a name with time fields is never taken over anything) */
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": a file is there, or another file of "
            "its number (\"%s\" with other times): a name with time fields "
            "is never taken over anything; the recording ends here, its "
            "earlier files whole.", path, self->location), ("%s", dbg));
  } else if (err == EEXIST) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot record to \"%s\": it exists and is not a regular file "
            "(the files of a recording split by a pattern are regular "
            "files), or its index name holds a file that is not an rtframe "
            "index.", path), ("%s", dbg));
  } else if (err == EINVAL && direct == RTF_DIRECT_ON) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for direct I/O: the filesystem does "
            "not support O_DIRECT (direct=on).", path),
        ("open(O_DIRECT): %s", dbg));
  } else {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for writing: %s.", path, e), ("%s", dbg));
  }
  g_free (dbg);
}

/* The writer stopped on an I/O error: a file of a set could not be opened
 * (said as at start), the disk is full, or a write or sync failed */
void
gst_rtframe_sink_post_failure (GstRtFrameSink * self,
    const RtfFailure * failure)
{
  const gchar *path = failure->path, *detail = failure->detail;
  const gchar *what = step_name (failure->step);
  gint err = failure->err;

  if (failure->step == RTF_FAIL_XFLAGS || failure->step == RTF_FAIL_HINT
      || failure->step == RTF_FAIL_OPEN
      || (failure->step == RTF_FAIL_INDEX && err != ENOSPC)) {
    /* (the writer's settings: no object lock under the callback lock) */
    gst_rtframe_sink_post_open_error (self, failure->step, path, err,
        failure->direct, &failure->xflags, detail);
  } else if (failure->step == RTF_FAIL_SPACE) {
    gchar *written = g_format_size (failure->bytes_written);
    gchar *left = g_format_size (failure->free_space);
    gchar *min = g_format_size (failure->min_free_space);

    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Recording to \"%s\" ended before its filesystem was full: %"
            G_GUINT64_FORMAT " frames (%s) written, %s left; the next frame "
            "would have taken it under min-free-space (%s)%s.", path,
            failure->frames_written, written,
            left, min, self->rotate ? "; no older file of this recording is "
            "left to delete for it" : ""),
        ("%" G_GUINT64_FORMAT " bytes written, %" G_GUINT64_FORMAT
            " bytes free, min-free-space %" G_GUINT64_FORMAT " bytes: %s",
            failure->bytes_written, failure->free_space,
            failure->min_free_space, detail));
    g_free (written);
    g_free (left);
    g_free (min);
  } else if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("No space left to write to file \"%s\".", path),
        ("%s failed: %s", what, detail));
  } else {
    /* a write, or an fdatasync of sync-interval: the same to the user */
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Error while writing to file \"%s\": %s.", path,
            g_strerror (err)), ("%s failed: %s", what, detail));
  }
}
