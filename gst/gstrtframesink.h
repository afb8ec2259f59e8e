/* rtframe: rtframesink, the recording element */
#ifndef __GST_RTFRAME_SINK_H__
#define __GST_RTFRAME_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

#include "gstrtframecaps.h"
#include "gstrtframeenums.h"
#include "rtf-writer.h"

G_BEGIN_DECLS

#define GST_TYPE_RTFRAME_SINK (gst_rtframe_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameSink, gst_rtframe_sink, GST, RTFRAME_SINK,
    GstBaseSink);

typedef struct _GstRtFrameSlot GstRtFrameSlot;

struct _GstRtFrameSink
{
  GstBaseSink parent;

  /* properties, under the object lock */
  gchar *location;
  guint max_size_buffers;
  guint64 max_size_bytes;
  guint io_depth;
  GstRtFrameIoEngine io_engine;
  GstRtFrameDirect direct;
  guint64 preallocate;

  /* negotiated, streaming thread */
  GstRtFrameFormat format;
  GstBufferPool *repack_pool;

  /* running (start .. stop) */
  RtfWriter *writer;            /* under the object lock */
  GstRtFrameSlot *slots;        /* one per queue slot */
  GstTask *task;
  GRecMutex task_lock;
  guint64 frames_repacked;
  RtfWriterStats last_stats;    /* of the last run, after stop */
};

GST_ELEMENT_REGISTER_DECLARE (rtframesink);

G_END_DECLS

#endif /* __GST_RTFRAME_SINK_H__ */
