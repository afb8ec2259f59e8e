/* rtframe: the rtframesink-stats structure, made of the writer's figures
 * (common/writer/rtf-stats.h) and what the element adds - the fields and what
 * each is (documented in docs/reference.md) */
#ifndef __GST_RTFRAME_STATS_H__
#define __GST_RTFRAME_STATS_H__

#include <gst/gst.h>

#include "rtf-writer.h"

G_BEGIN_DECLS
/* What a stats structure is made of (gstrtframestats.c): the writer's
 * figures (common/writer/rtf-stats.h) and what the element adds */
    typedef struct
{
  const gchar *location;
  guint64 deadline;
  gint64 elapsed_ns;            /* since start */
  const RtfWriterStats *writer;
  const RtfWriterLatency *latency;      /* NULL: no latency fields */
  guint64 frames_repacked;
  guint64 pre_record_copies;    /* frames copied to be held */
  guint64 interval_bytes;       /* written since the last stats message */
  gint64 interval_ns;
  guint64 events_overflowed;    /* frame messages not posted (burst) */
  guint64 frame_size;           /* bytes of a frame, 0 before caps */
  gdouble frame_rate;           /* the caps' frames/s, 0: none */
  /* what a recording starting now would begin with (record=false,
   * pre-record-time): frames held in memory, or in the ring on disk */
  guint64 pre_record_frames, pre_record_bytes, pre_record_span;
} GstRtFrameStatsInput;

GstStructure *gst_rtframe_stats_new (const gchar * name,
    const GstRtFrameStatsInput * in);

/* The fields the element adds, with what each is */
typedef struct
{
  const gchar *name;
  const gchar *doc;
} GstRtFrameStatsField;

const GstRtFrameStatsField *gst_rtframe_stats_element_fields (guint * n_fields);
/* The fields locations= adds to the stats, and those of each "location"
 * structure in its "locations" array (gstrtframefigures.c) */
const GstRtFrameStatsField *gst_rtframe_stats_spread_fields (guint * n_fields);
const GstRtFrameStatsField *gst_rtframe_stats_location_fields (guint *
    n_fields);

G_END_DECLS
#endif /* __GST_RTFRAME_STATS_H__ */
