/* rtframe: rtframesink's figures - the stream's (one writer, or the spread
 * over its locations) and the rtframesink-stats structure made of them.
 * Below every part that reads them. */
#ifndef __GST_RTFRAME_FIGURES_H__
#define __GST_RTFRAME_FIGURES_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* The stream's figures, from the writer or the spread (object lock held,
 * self->writer set); latency may be NULL */
void gst_rtframe_sink_writer_stats (GstRtFrameSink * self,
    RtfWriterStats * st, RtfWriterLatency * latency);
/* The statistics now (call with the object lock, self->writer set); with
 * `interval` the interval figures restart from now */
GstStructure *gst_rtframe_sink_stats (GstRtFrameSink * self,
    const gchar * name, gboolean interval);
/* The same from a snapshot of the writer's figures */
GstStructure *gst_rtframe_sink_stats_of (GstRtFrameSink * self,
    const gchar * name, gboolean interval, const RtfWriterStats * st,
    const RtfWriterLatency * latency);
/* Posts rtframesink-stats, the interval figures restarting (nothing when
 * the writer is gone) */
void gst_rtframe_sink_post_stats (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_FIGURES_H__ */
