/* rtframe: rtframesink as an event recorder (gstrtframerecord.c): the
 * requests, frames held for pre-record, a start's backlog, the recording
 * messages */
#ifndef __GST_RTFRAME_RECORD_H__
#define __GST_RTFRAME_RECORD_H__

#include "gstrtframesink-private.h"

G_BEGIN_DECLS

/* Queue cells for a backlog (0: no pre-record) */
guint gst_rtframe_sink_backlog_cells (GstRtFrameSink * self);
void gst_rtframe_sink_mark_proposed_pool (GstBufferPool * pool);
/* start(): the recorder; set_caps(): the memory frames are held in;
 * stop(): both go, and the frames held */
void gst_rtframe_sink_record_begin (GstRtFrameSink * self);
gboolean gst_rtframe_sink_record_caps (GstRtFrameSink * self, GstCaps * caps);
void gst_rtframe_sink_record_end (GstRtFrameSink * self);
/* ... and, once the writers have ended, what told their recordings */
void gst_rtframe_sink_record_free (GstRtFrameSink * self);
/* A start or stop asked for (by: who, for the log), at running_time
 * (NONE: now; in the stream, serialized: exactly the next frame) */
gboolean gst_rtframe_sink_request (GstRtFrameSink * self, gboolean start,
    GstClockTime running_time, gboolean serialized, const gchar * by);
/* Any request (rtf-schedule.h), answered into *reply; with commit made,
 * and posted (rtframesink-recording-request).  Times of
 * GST_CLOCK_TIME_NONE are now (serialized: the next frame). */
gboolean gst_rtframe_sink_request_full (GstRtFrameSink * self,
    const RtfRequest * q, gboolean serialized, gboolean commit,
    const gchar * by, RtfRecordReply * reply);
GstStructure *gst_rtframe_sink_reply_structure (const gchar * name,
    const RtfRequest * q, const RtfRecordReply * reply, const gchar * by);
gboolean gst_rtframe_sink_record_event (GstRtFrameSink * self,
    GstEvent * event);
/* Recording, or asked to (object lock held) */
gboolean gst_rtframe_sink_record_wanted (GstRtFrameSink * self);
/* What a recording's start and the expiry of held frames do: from memory
 * (the backlog handed over, frames let go) or in a ring (the files kept,
 * numbers forgotten).  start: FALSE when the writer failed (it said why) */
typedef struct
{
  void (*expire) (GstRtFrameSink * self);
  gboolean (*start) (GstRtFrameSink * self, const RtfRecordTurn * turn);
} GstRtFrameTurnOps;
/* The recorder's turns at a frame of running_time, in order: recordings
 * stopped, held frames expired, recordings started and ended.  *action:
 * the frame's; *live: the last recording started and not ended by it
 * (*has_live).  FALSE: a start failed */
gboolean gst_rtframe_sink_take_turns (GstRtFrameSink * self,
    guint64 running_time, const GstRtFrameTurnOps * ops,
    RtfRecordAction * action, RtfRecordTurn * live, gboolean * has_live);
/* render: TRUE when frame_buf is to be written (*flags for it); FALSE when
 * it was held or let go (taken) or the writer failed (*ret) */
gboolean gst_rtframe_sink_record_frame (GstRtFrameSink * self,
    GstBuffer * frame_buf, const RtfFrameTimes * times,
    const RtfFrameOrigin * origin, guint * flags, GstFlowReturn * ret);
/* A frame of the recording on, numbered seq, taken by location index (0
 * without locations), before it is committed: the flags it gets more */
guint gst_rtframe_sink_record_taken (GstRtFrameSink * self, gint index,
    guint64 seq, guint flags);
void gst_rtframe_sink_record_committed (GstRtFrameSink * self, guint64 seq);
/* The frame render was given the flags for was dropped or refused: a
 * recording's start goes to the next frame taken */
void gst_rtframe_sink_record_not_taken (GstRtFrameSink * self, guint flags);
/* The recording on ends (a stop, EOS, the end: reason) / a recording's
 * first frame goes: what each was asked with is kept for its messages
 * (also a ring's, gstrtframering.c) */
void gst_rtframe_sink_end_recording (GstRtFrameSink * self, guint64 asked,
    const gchar * reason);
guint gst_rtframe_sink_mark_first (GstRtFrameSink * self,
    const RtfRecordTurn * turn, guint prerecorded, guint64 prerecorded_from);
void gst_rtframe_sink_record_eos (GstRtFrameSink * self);
void gst_rtframe_sink_record_flush (GstRtFrameSink * self);
/* The writer's announcements of a recording, made messages */
void gst_rtframe_sink_recording_started (GstRtFrameSink * self,
    const RtfRecordingInfo * info);
void gst_rtframe_sink_recording_stopped (GstRtFrameSink * self,
    const RtfRecordingInfo * info);

G_END_DECLS
#endif /* __GST_RTFRAME_RECORD_H__ */
