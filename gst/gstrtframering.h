/* rtframe: rtframesink's pre-record on disk (keep-location): every frame
 * into a ring of files, each recording kept by linking its files into a
 * directory of its own (gstrtframering.c) */
#ifndef __GST_RTFRAME_RING_H__
#define __GST_RTFRAME_RING_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* A ring's files, when neither max-file-size nor max-file-duration says:
 * what a recording keeps at most before its first frame */
#define DEFAULT_RING_FILE_DURATION GST_SECOND

/* At start: whether keep-location turns a ring on (self->ring), and
 * whether it can (FALSE with *why: the settings cannot make one) */
gboolean gst_rtframe_sink_ring_check (GstRtFrameSink * self,
    const gchar * location, gboolean rotate, gchar ** why);
/* At caps: pre-record-time at the caps' rate fits in what the recorder
 * holds of the frames (max_frames), or it is said */
gboolean gst_rtframe_sink_ring_caps (GstRtFrameSink * self,
    guint max_frames);

/* The streaming thread: a frame comes (before it is offered: the
 * recordings it starts and stops); it was taken as seq (G_MAXUINT64:
 * dropped) */
gboolean gst_rtframe_sink_ring_frame (GstRtFrameSink * self,
    const RtfFrameTimes * times, gsize size);
void gst_rtframe_sink_ring_committed (GstRtFrameSink * self, guint64 seq);
/* The recording on ends with the last frame committed to it */
void gst_rtframe_sink_ring_keep_end (GstRtFrameSink * self);
/* Every frame held is forgotten (EOS, a flush, new caps, the end) */
void gst_rtframe_sink_ring_forget_all (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_RING_H__ */
