/* rtframe: rtframesink's locations, several disks for one stream
 * (gstrtframespread.c) */
#ifndef __GST_RTFRAME_SPREAD_H__
#define __GST_RTFRAME_SPREAD_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS
/* start(): the spread over self->locations (config and writer_callbacks as
 * for one location): its first location's writer, or NULL with what
 * failed (*why: the locations disagree; *failed_location, *err, *step: a
 * location could not be opened; neither: the error is posted - a
 * manifest's name holds a running or another recording's manifest) */
    RtfWriter * gst_rtframe_sink_spread_new (GstRtFrameSink * self,
    const RtfWriterConfig * config,
    const RtfWriterCallbacks * writer_callbacks, gchar ** failed_location,
    gint * err, RtfFailStep * step, gchar ** why);
/* The other locations' writer threads: 0 or the errno of their engine */
gint gst_rtframe_sink_spread_run (GstRtFrameSink * self);
/* stop(): the other locations get until end_us to finish, then are given
 * up (the error posted says what was lost); with all finished
 * (first_finished: location 0's writer) the manifests say the end */
void gst_rtframe_sink_spread_finish (GstRtFrameSink * self, gint64 end_us,
    gboolean first_finished);
void gst_rtframe_sink_spread_free (GstRtFrameSink * self);
/* render: the frame placed and offered (w: the location's writer) */
RtfOffer gst_rtframe_sink_spread_offer (GstRtFrameSink * self,
    RtfLeaky leaky, const RtfFrameTimes * times,
    const RtfFrameOrigin * origin, RtfFrame ** frame, RtfWriter ** w,
    gint * index);
/* render: frames of a location that failed offered again */
GstFlowReturn gst_rtframe_sink_spread_redo (GstRtFrameSink * self);
/* EOS: 0, -1 flushing, or an errno */
gint gst_rtframe_sink_spread_sync (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_SPREAD_H__ */
