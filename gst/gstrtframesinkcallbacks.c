/* rtframe: what the writer tells rtframesink - its callbacks
 * (gst_rtframe_sink_writer_callbacks, given to every writer the element
 * makes, through the spread too).  They run on the writer's threads with
 * its callback lock held (rtf-writer.h), so they only push to the event
 * ring or queue a message, never post on the bus themselves: the reporter
 * task (gstrtframetasks.c) posts them. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframedebug.h"
#include "gstrtframesinkcallbacks.h"
#include "gstrtframesink-private.h"
#include "gstrtframememory.h"
#include "gstrtframemessages.h"
#include "gstrtframerecord.h"

#define GST_CAT_DEFAULT gst_rtframe_sink_debug

static void
writer_frame_done (RtfFrame * frame, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  gst_rtframe_sink_frame_clear (frame);
  if (frame->state == RTF_FRAME_WRITTEN
      && g_atomic_int_get (&self->frame_messages))
    rtf_events_push_written (self->events, frame);
}

/* A frame dropped (leaky), on the streaming thread: its missed deadline
 * (unless posted before) and a QoS message, through the ring */
static void
writer_frame_dropped (const RtfFrameReport * report, gboolean missed_before,
    gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  GST_DEBUG_OBJECT (self, "dropped frame %" G_GUINT64_FORMAT, report->seq);
  rtf_events_push (self->events, missed_before ?
      RTF_EVENT_DROPPED_AFTER_MISS : RTF_EVENT_DROPPED, report);
}

static void
writer_failed (const RtfFailure * failure, gpointer user_data)
{
  gst_rtframe_sink_post_failure (GST_RTFRAME_SINK (user_data), failure);
}

/* file-opened/closed: made here (a file changes a few times an hour at
 * most), posted by the reporter task in order */
static void
push_file_message (GstRtFrameSink * self, gboolean opened,
    const RtfFileInfo * info)
{
  GST_INFO_OBJECT (self, "%s %s", opened ? "opened" : "closed", info->path);
  /* one file: EOS says it all */
  if (!self->rotate)
    return;
  gst_rtframe_sink_queue_message (self,
      gst_rtframe_message_file (GST_OBJECT_CAST (self), opened, info));
}

/* The first frame of a file as a sample: its buffer (none when it was
 * held for pre-record and let go), its caps, the segment */
static GstSample *
first_sample (GstRtFrameSink * self, const RtfFrame * first)
{
  GstRtFrameMapping *mapping = first->user;
  GstCaps *caps = first->format ? gst_caps_from_string (first->format) : NULL;
  GstSegment segment;
  GstSample *sample;

  GST_OBJECT_LOCK (self);
  gst_segment_copy_into (&GST_BASE_SINK (self)->segment, &segment);
  GST_OBJECT_UNLOCK (self);
  sample = gst_sample_new (mapping ? mapping->buffer : NULL, caps, &segment,
      NULL);
  if (caps)
    gst_caps_unref (caps);
  return sample;
}

/* format-location-full, then format-location (splitmuxsink's order): the
 * name an application gives the file; the writer checks it */
static gchar *
writer_name_file (guint64 number, const RtfFrame * first,
    const gchar * proposed, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  guint id = (guint) MIN (number, G_MAXUINT);
  gchar *name = NULL;

  if (g_signal_has_handler_pending (self,
          g_signal_lookup ("format-location-full", GST_TYPE_RTFRAME_SINK), 0,
          FALSE)) {
    GstSample *sample = first_sample (self, first);

    g_signal_emit_by_name (self, "format-location-full", id, sample, &name);
    gst_sample_unref (sample);
  }
  if (name == NULL)
    g_signal_emit_by_name (self, "format-location", id, &name);
  GST_DEBUG_OBJECT (self, "file %" G_GUINT64_FORMAT ": %s", number,
      name ? name : proposed);
  return name;
}

static void
writer_file_opened (const RtfFileInfo * info, gpointer user_data)
{
  push_file_message (GST_RTFRAME_SINK (user_data), TRUE, info);
}

static void
writer_file_closed (const RtfFileInfo * info, gpointer user_data)
{
  push_file_message (GST_RTFRAME_SINK (user_data), FALSE, info);
}

/* file-deleted: on the file helper thread, like file-closed */
static void
writer_file_deleted (const RtfFileDeleted * info, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  GST_INFO_OBJECT (self, "deleted %s (%s)", info->path,
      rtf_delete_reason_name (info->reason));
  gst_rtframe_sink_queue_message (self,
      gst_rtframe_message_file_deleted (GST_OBJECT_CAST (self), info));
  /* the disk took frames the ring should still hold: no recording
   * counts them from now on, and it is said (once a run; each recording
   * that wanted some says so too, and counts them lost) */
  if (self->ring && info->reason == RTF_DELETE_MIN_FREE_SPACE
      && info->last_seq >= __atomic_load_n (&self->ring_floor,
          __ATOMIC_RELAXED)) {
    guint64 gone = __atomic_load_n (&self->ring_gone_upto, __ATOMIC_RELAXED);

    if (gone == G_MAXUINT64 || info->last_seq > gone)
      __atomic_store_n (&self->ring_gone_upto, info->last_seq,
          __ATOMIC_RELAXED);
  }
  if (self->ring && info->reason == RTF_DELETE_MIN_FREE_SPACE
      && info->last_seq >= __atomic_load_n (&self->ring_floor, __ATOMIC_RELAXED)
      && !g_atomic_int_add (&self->ring_short_told, 1)) {
    GError *err = g_error_new (GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NO_SPACE_LEFT, "The disk is short: the ring "
        "holds less than pre-record-time (min-free-space deleted %s, "
        "frames %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ").",
        info->path, info->first_seq, info->last_seq);

    gst_rtframe_sink_queue_message (self,
        gst_message_new_warning (GST_OBJECT_CAST (self), err,
            "min-free-space recycles the ring's files first"));
    g_error_free (err);
  }
}

/* A ring's file kept by a recording (or not: a warning), on the file
 * helper thread */
static void
writer_file_kept (const RtfFileKept * info, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);
  GError *err;
  gchar *dbg;

  if (info->error == 0) {
    gst_rtframe_sink_queue_message (self,
        gst_rtframe_message_file_kept (GST_OBJECT_CAST (self), info));
    return;
  }
  err = g_error_new (GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
      "Recording %" G_GUINT64_FORMAT " could not keep a file of the ring: "
      "%s.", info->keep, info->why ? info->why : g_strerror (info->error));
  dbg = g_strdup_printf ("keep-location %s: %s", info->dir,
      g_strerror (info->error));
  GST_WARNING_OBJECT (self, "%s", err->message);
  gst_rtframe_sink_queue_message (self,
      gst_message_new_warning (GST_OBJECT_CAST (self), err, dbg));
  g_error_free (err);
  g_free (dbg);
}

/* A level crossed, on the writer thread: through the ring, like the
 * frame events */
static void
writer_disk_space (const RtfSpaceReport * report, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push_space (self->events, report);
}


static void
writer_deadline_missed (const RtfFrameReport * miss, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push (self->events, RTF_EVENT_MISSED, miss);
}

static void
writer_late_completion (const RtfFrameReport * miss, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push (self->events, RTF_EVENT_LATE_DONE, miss);
}

/* A frame written behind a backlog: its buffer goes back now (a camera's
 * pool has few), the frame is reported in order later */
static void
writer_frame_unpinned (RtfFrame * frame, gpointer user_data)
{
  gst_rtframe_sink_frame_unpin (frame);
}

static void
writer_recording_started (const RtfRecordingInfo * info, gpointer user_data)
{
  gst_rtframe_sink_recording_started (GST_RTFRAME_SINK (user_data), info);
}

static void
writer_recording_stopped (const RtfRecordingInfo * info, gpointer user_data)
{
  gst_rtframe_sink_recording_stopped (GST_RTFRAME_SINK (user_data), info);
}

/* Upstream lost frames (the streaming thread, as it offers the frame
 * after them): the message goes through the ring like the others, so the
 * streaming thread builds no GstStructure and takes no bus lock */
static void
writer_upstream_gap (const RtfFrameReport * report,
    const RtfFrameOrigin * origin, gpointer user_data)
{
  GstRtFrameSink *self = GST_RTFRAME_SINK (user_data);

  rtf_events_push_upstream_gap (self->events, report, origin);
}

const RtfWriterCallbacks gst_rtframe_sink_writer_callbacks = {
  .frame_done = writer_frame_done,
  .frame_dropped = writer_frame_dropped,
  .failed = writer_failed,
  .log = gst_rtframe_debug_log, /* (each part its category) */
  .log_wanted = gst_rtframe_debug_wanted,
  .deadline_missed = writer_deadline_missed,
  .late_completion = writer_late_completion,
  .file_opened = writer_file_opened,
  .name_file = writer_name_file,
  .file_closed = writer_file_closed,
  .frame_unpinned = writer_frame_unpinned,
  .recording_started = writer_recording_started,
  .recording_stopped = writer_recording_stopped,
  .upstream_gap = writer_upstream_gap,
  .file_deleted = writer_file_deleted,
  .file_kept = writer_file_kept,
  .disk_space = writer_disk_space,
};
