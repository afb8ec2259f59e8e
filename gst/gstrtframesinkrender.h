/* rtframe: rtframesink's render (gstrtframesinkrender.c): GstBaseSink's
 * methods for buffers, and the reference timestamps its frames carry */
#ifndef __GST_RTFRAME_SINK_RENDER_H__
#define __GST_RTFRAME_SINK_RENDER_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

GstFlowReturn gst_rtframe_sink_render (GstBaseSink * sink,
    GstBuffer * buffer);
gboolean gst_rtframe_sink_unlock (GstBaseSink * sink);
gboolean gst_rtframe_sink_unlock_stop (GstBaseSink * sink);
/* The reference timestamps kept, and their caps as text for the index
 * header: `caps` (NULL: not known yet) */
void gst_rtframe_sink_reference_set (GstRtFrameSink * self, GstCaps * caps);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_RENDER_H__ */
