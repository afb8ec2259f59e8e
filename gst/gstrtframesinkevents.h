/* rtframe: rtframesink's events and queries (gstrtframesinkevents.c):
 * GstElement's and GstBaseSink's methods */
#ifndef __GST_RTFRAME_SINK_EVENTS_H__
#define __GST_RTFRAME_SINK_EVENTS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

gboolean gst_rtframe_sink_send_event (GstElement * element, GstEvent * event);
gboolean gst_rtframe_sink_query (GstBaseSink * sink, GstQuery * query);
gboolean gst_rtframe_sink_set_caps (GstBaseSink * sink, GstCaps * caps);
gboolean gst_rtframe_sink_propose_allocation (GstBaseSink * sink,
    GstQuery * query);
gboolean gst_rtframe_sink_event (GstBaseSink * sink, GstEvent * event);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_EVENTS_H__ */
