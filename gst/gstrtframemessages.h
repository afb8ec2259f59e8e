/* rtframe: the bus messages rtframesink posts (documented in
 * docs/reference.md) */
#ifndef __GST_RTFRAME_MESSAGES_H__
#define __GST_RTFRAME_MESSAGES_H__

#include <gst/gst.h>

#include "rtf-events.h"
#include "rtf-writer.h"
#include "gstrtframepath.h"

G_BEGIN_DECLS
#define GST_RTFRAME_MSG_MISSED "rtframesink-deadline-missed"
#define GST_RTFRAME_MSG_LATE "rtframesink-late-completion"
#define GST_RTFRAME_MSG_STATS "rtframesink-stats"
#define GST_RTFRAME_MSG_WRITTEN "rtframesink-frame-written"
#define GST_RTFRAME_MSG_FILE_OPENED "rtframesink-file-opened"
#define GST_RTFRAME_MSG_FILE_CLOSED "rtframesink-file-closed"
#define GST_RTFRAME_MSG_RECORDING_STARTED "rtframesink-recording-started"
#define GST_RTFRAME_MSG_RECORDING_STOPPED "rtframesink-recording-stopped"
#define GST_RTFRAME_MSG_UPSTREAM_GAP "rtframesink-upstream-gap"
#define GST_RTFRAME_MSG_FILE_DELETED "rtframesink-file-deleted"
#define GST_RTFRAME_MSG_DISK_SPACE "rtframesink-disk-space"
#define GST_RTFRAME_MSG_LOCATION_LEFT "rtframesink-location-left"

/* What a stats structure is made of (gstrtframestats.c): the writer's
 * figures (common/rtf-stats.h) and what the element adds */
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
 * structure in its "locations" array (gstrtframespread.c) */
const GstRtFrameStatsField *gst_rtframe_stats_spread_fields (guint * n_fields);
const GstRtFrameStatsField *gst_rtframe_stats_location_fields (guint *
    n_fields);
GstMessage *gst_rtframe_message_missed (GstObject * src,
    const RtfFrameReport * m);
GstMessage *gst_rtframe_message_late (GstObject * src,
    const RtfFrameReport * m);
GstMessage *gst_rtframe_message_written (GstObject * src, const RtfEvent * e);
GstMessage *gst_rtframe_message_upstream_gap (GstObject * src,
    const RtfEvent * e);
GstMessage *gst_rtframe_message_file (GstObject * src, gboolean opened,
    const RtfFileInfo * info);
GstMessage *gst_rtframe_message_qos_drop (GstObject * src,
    const RtfFrameReport * m, guint64 processed, guint64 dropped);
GstMessage *gst_rtframe_message_file_deleted (GstObject * src,
    const RtfFileDeleted * info);
GstMessage *gst_rtframe_message_disk_space (GstObject * src,
    const RtfSpaceReport * r);

G_END_DECLS
#endif /* __GST_RTFRAME_MESSAGES_H__ */
