/* rtframe: the bus messages rtframesink posts, and its errors (documented
 * in docs/reference.md) */
#ifndef __GST_RTFRAME_MESSAGES_H__
#define __GST_RTFRAME_MESSAGES_H__

#include <gst/gst.h>

#include "gstrtframesink-private.h"
#include "rtf-events.h"
#include "rtf-writer.h"
#include "gstrtframepath.h"
/* the rtframesink-stats structure */
#include "gstrtframestats.h"

G_BEGIN_DECLS
#define GST_RTFRAME_MSG_MISSED "rtframesink-deadline-missed"
#define GST_RTFRAME_MSG_LATE "rtframesink-late-completion"
#define GST_RTFRAME_MSG_STATS "rtframesink-stats"
#define GST_RTFRAME_MSG_WRITTEN "rtframesink-frame-written"
#define GST_RTFRAME_MSG_FILE_OPENED "rtframesink-file-opened"
#define GST_RTFRAME_MSG_FILE_CLOSED "rtframesink-file-closed"
#define GST_RTFRAME_MSG_RECORDING_STARTED "rtframesink-recording-started"
#define GST_RTFRAME_MSG_RECORDING_STOPPED "rtframesink-recording-stopped"
#define GST_RTFRAME_MSG_RECORDING_REQUEST "rtframesink-recording-request"
#define GST_RTFRAME_MSG_UPSTREAM_GAP "rtframesink-upstream-gap"
#define GST_RTFRAME_MSG_FILE_DELETED "rtframesink-file-deleted"
#define GST_RTFRAME_MSG_FILE_KEPT "rtframesink-file-kept"
#define GST_RTFRAME_MSG_DISK_SPACE "rtframesink-disk-space"
#define GST_RTFRAME_MSG_LOCATION_LEFT "rtframesink-location-left"
    GstMessage * gst_rtframe_message_missed (GstObject * src,
    const RtfFrameReport * m);
GstMessage *gst_rtframe_message_late (GstObject * src,
    const RtfFrameReport * m);
GstMessage *gst_rtframe_message_written (GstObject * src, const RtfEvent * e);
GstMessage *gst_rtframe_message_upstream_gap (GstObject * src,
    const RtfEvent * e);
GstMessage *gst_rtframe_message_file (GstObject * src, gboolean opened,
    const RtfFileInfo * info);
/* rtframesink-recording-started/-stopped: the recording's number in the
 * stream, what it was asked with, what the writer (or, with locations,
 * the writers) told */
GstStructure *gst_rtframe_structure_recording_started (const
    GstRtFrameRecordAsk * a, const RtfRecordingInfo * info, guint64 number);
GstStructure *gst_rtframe_structure_recording_stopped (const
    GstRtFrameRecordAsk * a, const RtfRecordingInfo * info, guint64 number);
GstMessage *gst_rtframe_message_qos_drop (GstObject * src,
    const RtfFrameReport * m, guint64 processed, guint64 dropped);
GstMessage *gst_rtframe_message_file_deleted (GstObject * src,
    const RtfFileDeleted * info);
/* rtframesink-file-kept: a ring's file linked into a recording's
 * directory */
GstMessage *gst_rtframe_message_file_kept (GstObject * src,
    const RtfFileKept * info);
GstMessage *gst_rtframe_message_disk_space (GstObject * src,
    const RtfSpaceReport * r);

/* A file (the first, or the next of a set) could not be opened as asked */
void gst_rtframe_sink_post_open_error (GstRtFrameSink * self,
    RtfFailStep step, const gchar * path, gint err, RtfDirectMode direct,
    const RtfXflags * xflags, const gchar * detail);
/* The writer stopped on an I/O error */
void gst_rtframe_sink_post_failure (GstRtFrameSink * self,
    const RtfFailure * failure);
/* Queues msg for the reporter task, which posts it in order */
void gst_rtframe_sink_queue_message (GstRtFrameSink * self, GstMessage * msg);

G_END_DECLS
#endif /* __GST_RTFRAME_MESSAGES_H__ */
