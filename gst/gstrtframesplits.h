/* rtframe: rtframesink's splits asked for at running times
 * (split-at-running-time): kept sorted, and done by the first frame that
 * reaches each - a live frame, or a recording's first file, which is the
 * split its start asked for (gstrtframesplits.c) */
#ifndef __GST_RTFRAME_SPLITS_H__
#define __GST_RTFRAME_SPLITS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* A new file at the first frame at or after running_time (object lock
 * not held) */
void gst_rtframe_sink_split_add (GstRtFrameSink * self,
    GstClockTime running_time);
/* Whether a frame of this running time reaches a split asked for (each
 * it reaches is done): a new file at it */
gboolean gst_rtframe_sink_split_due (GstRtFrameSink * self,
    GstClockTime running_time);
/* With locations a split is every location's: the frame at location
 * `index` splits when one was asked now (split) or since its last frame
 * there.  Without, split.  (Streaming thread.) */
gboolean gst_rtframe_sink_split_at (GstRtFrameSink * self, gint index,
    gboolean split);
/* Every split asked for goes (the element stops) */
void gst_rtframe_sink_split_clear (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_SPLITS_H__ */
