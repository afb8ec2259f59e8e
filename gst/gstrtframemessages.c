/* rtframe: the bus messages rtframesink posts.  Every field is documented
 * in docs/reference.md. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframemessages.h"

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

static void
set_frame_fields (GstStructure * s, const RtfFrameReport * m)
{
  gst_structure_set (s,
      "frame", G_TYPE_UINT64, m->seq,
      "pts", G_TYPE_UINT64, m->times.pts,
      "duration", G_TYPE_UINT64, m->times.duration,
      "running-time", G_TYPE_UINT64, m->times.running_time,
      "size", G_TYPE_UINT64, (guint64) m->size,
      "arrival", G_TYPE_INT64, m->times.arrival_ns,
      "deadline", G_TYPE_INT64, m->times.deadline_ns, NULL);
}

GstMessage *
gst_rtframe_message_missed (GstObject * src, const RtfFrameReport * m)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_MISSED);

  set_frame_fields (s, m);
  gst_structure_set (s,
      "detected", G_TYPE_INT64, m->detected_ns,
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
      "completed", G_TYPE_INT64, m->detected_ns,
      "latency", G_TYPE_INT64, m->detected_ns - m->times.arrival_ns,
      "lateness", G_TYPE_INT64, m->detected_ns - m->times.deadline_ns, NULL);
  return gst_message_new_element (src, s);
}

GstMessage *
gst_rtframe_message_written (GstObject * src, const RtfEvent * e)
{
  GstStructure *s = gst_structure_new_empty (GST_RTFRAME_MSG_WRITTEN);
  const RtfFrameReport *m = &e->miss;

  set_frame_fields (s, m);
  gst_structure_set (s,
      "offset", G_TYPE_UINT64, e->offset,
      "submitted", G_TYPE_INT64, e->submit_ns,
      "completed", G_TYPE_INT64, m->detected_ns,
      "latency", G_TYPE_INT64, m->detected_ns - m->times.arrival_ns,
      "device-latency", G_TYPE_INT64, m->detected_ns - e->submit_ns,
      "missed", G_TYPE_BOOLEAN, m->times.deadline_ns != 0
      && m->detected_ns > m->times.deadline_ns,
      "copied", G_TYPE_BOOLEAN, e->copied, NULL);
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

static void
set_latency (GstStructure * s, const gchar * prefix, const RtfHistogram * h)
{
  RtfHistogramSummary sum;
  gchar name[64];

  rtf_histogram_summarize (h, &sum);
#define F(field, type, value) \
  g_snprintf (name, sizeof (name), "%s-%s", prefix, field); \
  gst_structure_set (s, name, type, value, NULL)
  F ("min", G_TYPE_UINT64, sum.min);
  F ("mean", G_TYPE_UINT64, (guint64) sum.mean);
  F ("max", G_TYPE_UINT64, sum.max);
  F ("stddev", G_TYPE_UINT64, (guint64) sum.stddev);
  F ("p50", G_TYPE_UINT64, sum.p50);
  F ("p99", G_TYPE_UINT64, sum.p99);
  F ("p99.9", G_TYPE_UINT64, sum.p999);
  F ("p99.99", G_TYPE_UINT64, sum.p9999);
#undef F
}

GstStructure *
gst_rtframe_stats_new (const gchar * name, const GstRtFrameStatsInput * in)
{
  const RtfWriterStats *w = &in->writer;
  GstStructure *s = gst_structure_new_empty (name);
  gdouble secs = in->elapsed_ns / 1e9;
  gdouble isecs = in->interval_ns / 1e9;

  gst_structure_set (s,
      "location", G_TYPE_STRING, in->location,
      "elapsed", G_TYPE_UINT64, (guint64) MAX (in->elapsed_ns, 0),
      "deadline", G_TYPE_UINT64, in->deadline,
      "frames-received", G_TYPE_UINT64, w->frames_received,
      "frames-written", G_TYPE_UINT64, w->frames_written,
      "frames-dropped", G_TYPE_UINT64, w->frames_dropped,
      "frames-missed", G_TYPE_UINT64, w->frames_missed + in->drops_missed,
      "frames-late", G_TYPE_UINT64, w->frames_late,
      "frames-lost", G_TYPE_UINT64, w->frames_lost,
      "frames-queued", G_TYPE_UINT64, (guint64) w->frames_queued,
      "frames-in-flight", G_TYPE_UINT64, (guint64) w->frames_in_flight,
      "bytes-written", G_TYPE_UINT64, w->bytes_written,
      "bytes-queued", G_TYPE_UINT64, w->bytes_queued,
      "frames-zero-copy", G_TYPE_UINT64, w->frames_zero_copy,
      "frames-copied", G_TYPE_UINT64, w->frames_copied,
      "writes-registered", G_TYPE_UINT64, w->writes_registered,
      "frames-repacked", G_TYPE_UINT64, in->frames_repacked,
      "throughput", G_TYPE_DOUBLE, secs > 0 ? w->bytes_written / secs : 0.0,
      "throughput-interval", G_TYPE_DOUBLE,
      isecs > 0 ? in->interval_bytes / isecs : 0.0,
      "queue-high-water-frames", G_TYPE_UINT, w->frames_held_max,
      "queue-high-water-bytes", G_TYPE_UINT64, w->bytes_held_max,
      "wait-total", G_TYPE_UINT64, in->wait_total_ns,
      "wait-max", G_TYPE_UINT64, in->wait_max_ns,
      "waits", G_TYPE_UINT64, in->waits,
      "io-engine", G_TYPE_STRING,
      w->engine == RTF_ENGINE_PSYNC ? "psync" : "io-uring",
      "direct", G_TYPE_BOOLEAN, w->direct,
      "write-alignment", G_TYPE_UINT, (guint) w->block,
      "messages-lost", G_TYPE_UINT64, in->events_overflowed,
      "files", G_TYPE_UINT64, w->files,
      "file-index", G_TYPE_UINT64, w->file_number,
      "frames-durable", G_TYPE_UINT64, w->frames_durable,
      "syncs", G_TYPE_UINT64, w->syncs,
      "sync-max", G_TYPE_UINT64, (guint64) MAX (w->sync_max_ns, 0), NULL);
  if (in->latency) {
    set_latency (s, "latency", &in->latency->arrival_to_done);
    set_latency (s, "device-latency", &in->latency->submit_to_done);
  }
  return s;
}

/* rtframesink-file-opened / rtframesink-file-closed */
GstMessage *
gst_rtframe_message_file (GstObject * src, gboolean opened,
    const RtfFileInfo * info)
{
  GstStructure *s = gst_structure_new (opened ? GST_RTFRAME_MSG_FILE_OPENED :
      GST_RTFRAME_MSG_FILE_CLOSED,
      "location", G_TYPE_STRING, info->path,
      "index-location", G_TYPE_STRING, info->index_path,
      "index", G_TYPE_UINT64, info->number,
      "first-frame", G_TYPE_UINT64, info->first_seq,
      "running-time", G_TYPE_UINT64, info->first_running_time,
      NULL);

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
