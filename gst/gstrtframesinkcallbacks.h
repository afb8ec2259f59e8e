/* rtframe: what the writer tells rtframesink (gstrtframesinkcallbacks.c) */
#ifndef __GST_RTFRAME_SINK_CALLBACKS_H__
#define __GST_RTFRAME_SINK_CALLBACKS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* user_data: the element */
extern const RtfWriterCallbacks gst_rtframe_sink_writer_callbacks;

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_CALLBACKS_H__ */
