/* rtframe: the rtframesink-stats structure - the writer's figures, as
 * common/writer/rtf-stats.h lists them, then what the element adds (below).
 * tests/test-stats-table.c holds the structure and docs/reference.md
 * against both lists. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframestats.h"
#include "gstrtframepath.h"

/* What the element adds to the writer's figures */
static const GstRtFrameStatsField element_fields[] = {
  {"location", "the file, or the pattern of a set"},
  {"elapsed", "ns since the element started"},
  {"deadline", "the deadline property, ns"},
  {"frames-repacked", "strided frames repacked by the streaming thread"},
  {"pre-record-copies", "frames copied into the sink's memory to be held "
        "for pre-record (their buffers were upstream's)"},
  {"throughput", "bytes-written / elapsed, bytes/s"},
  {"throughput-interval", "since the previous stats message, bytes/s"},
  {"messages-lost", "frame messages not posted: more than the ring held"},
  {"frame-size", "bytes of one frame as recorded, from the caps (0 before)"},
  {"frame-rate", "the caps' frames a second (0: none given, or variable)"},
  {"pre-record-frames", "frames a recording starting now would begin "
        "with: held in memory, or in the ring on disk (keep-location)"},
  {"pre-record-bytes", "... their bytes"},
  {"pre-record-span", "... the running time from the oldest to the newest, "
        "ns: how far back a recording starting now reaches"},
  {"rendered", "GstBaseSink's: frames written (frames-written)"},
  {"dropped", "GstBaseSink's: frames dropped (frames-dropped)"},
  {"average-rate", "GstBaseSink's: the share of frames written among those "
        "written or dropped, -1 before the first"},
#define LATENCY(prefix, what) \
  {prefix "-min", what}, {prefix "-mean", what}, {prefix "-max", what}, \
  {prefix "-stddev", what}, {prefix "-p50", what}, {prefix "-p99", what}, \
  {prefix "-p99.9", what}, {prefix "-p99.99", what}
  LATENCY ("latency", "arrival -> last byte written, ns"),
  LATENCY ("device-latency", "first write submitted -> last written, ns"),
  LATENCY ("sync-latency", "a sync-interval fdatasync of the file and its "
      "index, submitted -> done, ns"),
#undef LATENCY
};

const GstRtFrameStatsField *
gst_rtframe_stats_element_fields (guint * n_fields)
{
  *n_fields = G_N_ELEMENTS (element_fields);
  return element_fields;
}

/* what locations= adds (gstrtframefigures.c fills them) */
static const GstRtFrameStatsField spread_fields[] = {
  {"locations", "one location structure per location, in order"},
  {"frames-failed-over", "frames of a location that failed or stalled, "
        "written again at another"},
};

static const GstRtFrameStatsField location_fields[] = {
  {"location", "the file or pattern"},
  {"state", "active, stalled or failed"},
  {"frames-placed", "frames placement sent there"},
  {"frames-written", "of those, written there"},
  {"frames-durable", "written and fdatasync'ed there"},
  {"frames-missed", "missed their deadline there"},
  {"frames-failed-over", "not written there, written again elsewhere"},
  {"frames-queued", "waiting there to be written"},
  {"frames-in-flight", "writes submitted there (stalled: handed back)"},
  {"bytes-written", "bytes written there"},
  {"write-rate", "bytes-written / elapsed, bytes/s"},
  {"latency-p50", "submitted -> written, the median, ns"},
  {"latency-p99", "... the 99th percentile"},
  {"latency-max", "... the most"},
  {"latency-estimate", "what placement expects of a frame there now, ns"},
};

const GstRtFrameStatsField *
gst_rtframe_stats_spread_fields (guint * n_fields)
{
  *n_fields = G_N_ELEMENTS (spread_fields);
  return spread_fields;
}

const GstRtFrameStatsField *
gst_rtframe_stats_location_fields (guint * n_fields)
{
  *n_fields = G_N_ELEMENTS (location_fields);
  return location_fields;
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

/* One figure of the writer's table, as its kind posts it */
static void
set_writer_field (GstStructure * s, const RtfStatField * f,
    const RtfWriterStats * st)
{
  const guint8 *at = (const guint8 *) st + f->offset;

  switch (f->kind) {
    case RTF_STAT_U64:
      gst_structure_set (s, f->name, G_TYPE_UINT64, *(const guint64 *) at,
          NULL);
      break;
    case RTF_STAT_COUNT:
      gst_structure_set (s, f->name, G_TYPE_UINT64,
          (guint64) * (const guint *) at, NULL);
      break;
    case RTF_STAT_UINT:
      gst_structure_set (s, f->name, G_TYPE_UINT, *(const guint *) at, NULL);
      break;
    case RTF_STAT_SIZE:
      gst_structure_set (s, f->name, G_TYPE_UINT,
          (guint) * (const gsize *) at, NULL);
      break;
    case RTF_STAT_NS:
      gst_structure_set (s, f->name, G_TYPE_UINT64,
          (guint64) MAX (*(const gint64 *) at, 0), NULL);
      break;
    case RTF_STAT_BOOL:
      gst_structure_set (s, f->name, G_TYPE_BOOLEAN, *(const gboolean *) at,
          NULL);
      break;
    case RTF_STAT_ENGINE:
      gst_structure_set (s, f->name, G_TYPE_STRING,
          *(const RtfEngineKind *) at == RTF_ENGINE_PSYNC ? "psync" :
          "io-uring", NULL);
      break;
    default:
      break;                    /* not posted */
  }
}

GstStructure *
gst_rtframe_stats_new (const gchar * name, const GstRtFrameStatsInput * in)
{
  const RtfWriterStats *w = in->writer;
  GstStructure *s = gst_structure_new_empty (name);
  gdouble secs = in->elapsed_ns / 1e9;
  gdouble isecs = in->interval_ns / 1e9;
  const RtfStatField *fields;
  guint n, i;

  gst_rtframe_structure_set_path (s, "location", in->location);
  gst_structure_set (s,
      "elapsed", G_TYPE_UINT64, (guint64) MAX (in->elapsed_ns, 0),
      "deadline", G_TYPE_UINT64, in->deadline, NULL);
  fields = rtf_writer_stats_fields (&n);
  for (i = 0; i < n; i++)
    if (fields[i].name)
      set_writer_field (s, &fields[i], w);
  gst_structure_set (s,
      "frames-repacked", G_TYPE_UINT64, in->frames_repacked,
      "pre-record-copies", G_TYPE_UINT64, in->pre_record_copies,
      "throughput", G_TYPE_DOUBLE, secs > 0 ? w->bytes_written / secs : 0.0,
      "throughput-interval", G_TYPE_DOUBLE,
      isecs > 0 ? in->interval_bytes / isecs : 0.0,
      "messages-lost", G_TYPE_UINT64, in->events_overflowed,
      "frame-size", G_TYPE_UINT64, in->frame_size,
      "frame-rate", G_TYPE_DOUBLE, in->frame_rate,
      "pre-record-frames", G_TYPE_UINT64, in->pre_record_frames,
      "pre-record-bytes", G_TYPE_UINT64, in->pre_record_bytes,
      "pre-record-span", G_TYPE_UINT64, in->pre_record_span, NULL);
  /* GstBaseSink's stats fields, which this property replaces: generic
   * sink monitors read them (issue 26) */
  gst_structure_set (s,
      "rendered", G_TYPE_UINT64, w->frames_written,
      "dropped", G_TYPE_UINT64, w->frames_dropped,
      "average-rate", G_TYPE_DOUBLE, w->frames_written + w->frames_dropped ?
      (gdouble) w->frames_written / (w->frames_written + w->frames_dropped) :
      -1.0, NULL);
  if (in->latency) {
    set_latency (s, "latency", &in->latency->arrival_to_done);
    set_latency (s, "device-latency", &in->latency->submit_to_done);
    set_latency (s, "sync-latency", &in->latency->sync_to_done);
  }
  return s;
}
