/* rtframe: the enum types of rtframesink's properties */
#ifndef __GST_RTFRAME_ENUMS_H__
#define __GST_RTFRAME_ENUMS_H__

#include <glib-object.h>

G_BEGIN_DECLS

/* values match RtfEngineKind and RtfDirectMode of common/ */
typedef enum
{
  GST_RTFRAME_IO_ENGINE_AUTO = 0,
  GST_RTFRAME_IO_ENGINE_IO_URING,
  GST_RTFRAME_IO_ENGINE_PSYNC
} GstRtFrameIoEngine;

typedef enum
{
  GST_RTFRAME_DIRECT_AUTO = 0,
  GST_RTFRAME_DIRECT_ON,
  GST_RTFRAME_DIRECT_OFF
} GstRtFrameDirect;

/* what the streaming thread does when the queue is full (queue's values) */
typedef enum
{
  GST_RTFRAME_LEAKY_NO = 0,
  GST_RTFRAME_LEAKY_UPSTREAM,
  GST_RTFRAME_LEAKY_DOWNSTREAM
} GstRtFrameLeaky;

/* values match RtfSchedPolicy */
typedef enum
{
  GST_RTFRAME_THREAD_POLICY_DEFAULT = 0,
  GST_RTFRAME_THREAD_POLICY_FIFO,
  GST_RTFRAME_THREAD_POLICY_RR
} GstRtFrameThreadPolicy;

#define GST_TYPE_RTFRAME_LEAKY (gst_rtframe_leaky_get_type ())
GType gst_rtframe_leaky_get_type (void);

/* which location of several takes a frame (RtfPlacement's values) */
typedef enum
{
  GST_RTFRAME_PLACEMENT_SOONEST,
  GST_RTFRAME_PLACEMENT_ROUND_ROBIN
} GstRtFramePlacement;

#define GST_TYPE_RTFRAME_PLACEMENT (gst_rtframe_placement_get_type ())
GType gst_rtframe_placement_get_type (void);

#define GST_TYPE_RTFRAME_THREAD_POLICY (gst_rtframe_thread_policy_get_type ())
GType gst_rtframe_thread_policy_get_type (void);

#define GST_TYPE_RTFRAME_IO_ENGINE (gst_rtframe_io_engine_get_type ())
GType gst_rtframe_io_engine_get_type (void);

#define GST_TYPE_RTFRAME_DIRECT (gst_rtframe_direct_get_type ())
GType gst_rtframe_direct_get_type (void);

G_END_DECLS

#endif /* __GST_RTFRAME_ENUMS_H__ */
