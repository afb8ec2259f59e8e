/* rtframe: rtframesink's figures - the stream's, from its one writer or
 * the spread over its locations, with each location's, made into the
 * rtframesink-stats structure (gstrtframestats.c) with what the element
 * counts itself, and posted.  Read under the object lock, which guards
 * self->writer and self->spread. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframefigures.h"
#include "gstrtframesink-private.h"
#include "gstrtframemessages.h"
#include "gstrtframestats.h"
#include "rtf-clock.h"

/* ---- the writers' figures (object lock held) --------------------------- */

void
gst_rtframe_sink_writer_stats (GstRtFrameSink * self, RtfWriterStats * st,
    RtfWriterLatency * latency)
{
  if (self->spread)
    rtf_spread_get_stats (self->spread, st, latency);
  else {
    rtf_writer_get_stats (self->writer, st);
    if (latency)
      rtf_writer_get_latency (self->writer, latency);
  }
}

static GstStructure *
location_stats (GstRtFrameSink * self, guint i, gint64 elapsed_ns,
    RtfWriterLatency * lat)
{
  RtfSpreadLocationInfo info;
  RtfWriterStats st;
  const RtfHistogram *h = &lat->submit_to_done;
  GstStructure *s;

  rtf_spread_get_location (self->spread, i, &info, &st, lat);
  s = gst_structure_new_empty ("location");
  gst_rtframe_structure_set_path (s, "location",
      rtf_spread_location (self->spread, i));
  gst_structure_set (s,
      "state", G_TYPE_STRING, rtf_location_state_name (info.state),
      "frames-placed", G_TYPE_UINT64, info.frames_placed,
      "frames-written", G_TYPE_UINT64, st.frames_written,
      "frames-durable", G_TYPE_UINT64, st.frames_durable,
      "frames-missed", G_TYPE_UINT64, st.frames_missed,
      "frames-failed-over", G_TYPE_UINT64, info.frames_failed_over,
      "frames-queued", G_TYPE_UINT64, (guint64) st.frames_queued,
      "frames-in-flight", G_TYPE_UINT64, (guint64) st.frames_in_flight,
      "bytes-written", G_TYPE_UINT64, st.bytes_written,
      "write-rate", G_TYPE_UINT64, elapsed_ns > 0 ?
      (guint64) (st.bytes_written * 1e9 / elapsed_ns) : (guint64) 0,
      "latency-p50", G_TYPE_UINT64, rtf_histogram_percentile (h, 0.50),
      "latency-p99", G_TYPE_UINT64, rtf_histogram_percentile (h, 0.99),
      "latency-max", G_TYPE_UINT64, h->max,
      "latency-estimate", G_TYPE_UINT64, (guint64) info.latency_estimate_ns,
      NULL);
  return s;
}

/* The per-location figures into the stats structure ("locations": an
 * array of "location" structures; nothing without locations) */
static void
spread_stats (GstRtFrameSink * self, GstStructure * s, gint64 elapsed_ns)
{
  GValue list = G_VALUE_INIT;
  RtfWriterLatency *lat;
  guint i;

  if (self->spread == NULL)
    return;
  lat = g_new (RtfWriterLatency, 1);
  g_value_init (&list, GST_TYPE_ARRAY);
  for (i = 0; i < rtf_spread_n_locations (self->spread); i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&v, location_stats (self, i, elapsed_ns, lat));
    gst_value_array_append_and_take_value (&list, &v);
  }
  gst_structure_take_value (s, "locations", &list);
  gst_structure_set (s, "frames-failed-over", G_TYPE_UINT64,
      rtf_spread_frames_failed_over (self->spread), NULL);
  g_free (lat);
}

/* ---- the statistics ---------------------------------------------------- */

GstStructure *
gst_rtframe_sink_stats (GstRtFrameSink * self, const gchar * name,
    gboolean interval)
{
  RtfWriterLatency *latency = g_new (RtfWriterLatency, 1);
  RtfWriterStats st;
  GstStructure *s;

  gst_rtframe_sink_writer_stats (self, &st, latency);
  s = gst_rtframe_sink_stats_of (self, name, interval, &st, latency);
  g_free (latency);
  return s;
}

GstStructure *
gst_rtframe_sink_stats_of (GstRtFrameSink * self, const gchar * name,
    gboolean interval, const RtfWriterStats * st,
    const RtfWriterLatency * latency)
{
  GstRtFrameStatsInput in = { 0 };
  gint64 now = rtf_clock_now_ns ();
  GstStructure *s;

  in.writer = st;
  in.latency = latency;
  /* with locations, the first (each is in "locations") */
  in.location = self->locations && self->locations[0] ? self->locations[0] :
      self->location;
  in.deadline = self->deadline;
  in.frames_repacked = self->frames_repacked;
  in.pre_record_copies = self->hold_copies;
  /* (the recorder is the object lock's, held here) */
  if (self->recorder) {
    in.pre_record_frames = rtf_recorder_held (self->recorder,
        &in.pre_record_bytes);
    in.pre_record_span = rtf_recorder_held_span (self->recorder);
  }
  g_mutex_lock (&self->stats_lock);
  in.elapsed_ns = now - self->start_ns;
  in.events_overflowed = self->events_overflowed;
  in.interval_bytes = st->bytes_written - self->interval_bytes;
  in.interval_ns = now - self->interval_start;
  in.frame_size = self->frame_size;
  in.frame_rate = self->frame_rate;
  if (interval) {
    self->interval_bytes = st->bytes_written;
    self->interval_start = now;
  }
  g_mutex_unlock (&self->stats_lock);
  s = gst_rtframe_stats_new (name, &in);
  spread_stats (self, s, in.elapsed_ns);
  return s;
}

void
gst_rtframe_sink_post_stats (GstRtFrameSink * self)
{
  GstStructure *s;

  GST_OBJECT_LOCK (self);
  if (self->writer == NULL) {
    GST_OBJECT_UNLOCK (self);
    return;
  }
  s = gst_rtframe_sink_stats (self, GST_RTFRAME_MSG_STATS, TRUE);
  GST_OBJECT_UNLOCK (self);
  gst_element_post_message (GST_ELEMENT_CAST (self),
      gst_message_new_element (GST_OBJECT_CAST (self), s));
}
