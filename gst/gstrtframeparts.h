/* rtframe: event recording with locations - a recording in parts, one at
 * each location that takes a frame of it (gstrtframeparts.c) */
#ifndef __GST_RTFRAME_PARTS_H__
#define __GST_RTFRAME_PARTS_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS GstRtFrameParts *gst_rtframe_parts_new (guint n_locations);
void gst_rtframe_parts_free (GstRtFrameParts * parts);

/* ---- the streaming thread ----------------------------------------------- */

/* Location `index` took frame `seq` (flags: render's) of recording
 * `recording`, before it is committed: the flags it gets more
 * (RTF_FRAME_PART_START when it opens the location's part) */
guint gst_rtframe_parts_take (GstRtFrameSink * self, guint index,
    guint64 seq, guint64 recording, guint flags);
/* Location `index` took frame `seq` again, failed over from another: the
 * part open there ends no sooner than it */
void gst_rtframe_parts_redone (GstRtFrameSink * self, guint index, guint64 seq);
/* The recording on ended (end_asked, reason: as it is told): each
 * location's part ends with the last frame it took (eos: the writers end
 * them as they finish their files) */
void gst_rtframe_parts_end (GstRtFrameSink * self, guint64 recording,
    guint64 end_asked, const gchar * reason, gboolean eos);

/* ---- the writers' threads ----------------------------------------------- */

/* A location's writer tells a part began or ended */
void gst_rtframe_parts_started (GstRtFrameSink * self,
    const RtfRecordingInfo * info);
void gst_rtframe_parts_stopped (GstRtFrameSink * self,
    const RtfRecordingInfo * info);
/* Location `index` left the recording: its parts end with it (a stalled
 * location's writer tells nothing more) */
void gst_rtframe_parts_location_left (GstRtFrameSink * self, guint index);

G_END_DECLS
#endif /* __GST_RTFRAME_PARTS_H__ */
