/* rtframe: rtframesink, the recording element: its type (what an
 * instance holds, shared by the element's files: gstrtframesink-private.h) */
#ifndef __GST_RTFRAME_SINK_H__
#define __GST_RTFRAME_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

G_BEGIN_DECLS
#define GST_TYPE_RTFRAME_SINK (gst_rtframe_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameSink, gst_rtframe_sink, GST, RTFRAME_SINK,
    GstBaseSink);

GST_ELEMENT_REGISTER_DECLARE (rtframesink);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_H__ */
