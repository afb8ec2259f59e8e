/* rtframe: rtframesink's insides, shared by its files:
 *   gstrtframesink.c       the element: GstBaseSink methods (start, stop,
 *                          caps, allocation, events, render, unlock)
 *   gstrtframesinkprops.c  its properties
 *   gstrtframetasks.c      its threads: the writer task, the reporter task,
 *                          the writer's helpers, a writer given up on at
 *                          stop; and what the writer tells them
 *   gstrtframemessages.c   what it posts: messages, statistics, errors
 *   gstrtframespread.c     several locations (locations=): the spread,
 *                          frames placed and failed over, their figures
 *   gstrtframerecord.c     event recording: record, start/stop-recording,
 *                          the rtframe-record event, frames held for
 *                          pre-record, a start's backlog */
#ifndef __GST_RTFRAME_SINK_PRIVATE_H__
#define __GST_RTFRAME_SINK_PRIVATE_H__

#include "gstrtframesink.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_sink_debug);

/* frame events waiting to be posted (a fixed ring: the writer never
 * allocates for them); more in a burst are counted in messages-lost */
#define EVENT_RING_SIZE 4096
/* popped and posted at once by the reporter */
#define EVENT_BATCH 64

/* What the element attached to a queue cell: the buffer and its
 * mappings, kept until the writer is done with the frame. */
struct _GstRtFrameMapping
{
  GstBuffer *buffer;
  GstMemory *mem[RTF_FRAME_MAX_IOV];
  GstMapInfo map[RTF_FRAME_MAX_IOV];
  guint n_map;
};

/* ---- gstrtframesinkprops.c ------------------------------------------- */

void gst_rtframe_sink_install_properties (GObjectClass * gobject_class);
void gst_rtframe_sink_init_properties (GstRtFrameSink * self);
void gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* ---- gstrtframetasks.c ----------------------------------------------- */

extern const RtfWriterCallbacks gst_rtframe_sink_writer_callbacks;

void gst_rtframe_sink_post_stream_status (GstRtFrameSink * self,
    GstTask * task, GstStreamStatusType type);
/* The writer's helper threads run as tasks (self->helper_threads) */
void gst_rtframe_sink_init_threads (GstRtFrameSink * self);
/* Creates and starts the writer task for self->writer: FALSE when it
 * could not start */
gboolean gst_rtframe_sink_start_writer_task (GstRtFrameSink * self);
void gst_rtframe_sink_join_writer_task (GstRtFrameSink * self);
/* stop() waited stop-timeout and the writer still holds frames: leave it
 * to finish in the kernel on its own, report the frames it holds lost.
 * FALSE when it had finished after all (then join it as usual). */
gboolean gst_rtframe_sink_abandon_writer (GstRtFrameSink * self,
    guint64 timeout);
gboolean gst_rtframe_sink_start_reporter (GstRtFrameSink * self);
void gst_rtframe_sink_stop_reporter (GstRtFrameSink * self);
/* Posts what the event ring holds, in order (the reporter task, and
 * before EOS) */
void gst_rtframe_sink_post_events (GstRtFrameSink * self);
void gst_rtframe_sink_free_running_state (GstRtFrameSink * self);
/* Releases what the element attached to a frame */
void gst_rtframe_sink_frame_clear (RtfFrame * frame);

/* ---- gstrtframerecord.c ------------------------------------------------ */

/* Queue cells for a backlog (0: no pre-record) */
guint gst_rtframe_sink_backlog_cells (GstRtFrameSink * self);
void gst_rtframe_sink_mark_proposed_pool (GstBufferPool * pool);
/* start(): the recorder; set_caps(): the memory frames are held in;
 * stop(): both go, and the frames held */
void gst_rtframe_sink_record_begin (GstRtFrameSink * self);
gboolean gst_rtframe_sink_record_caps (GstRtFrameSink * self, GstCaps * caps);
void gst_rtframe_sink_record_end (GstRtFrameSink * self);
/* A start or stop asked for (by: who, for the log), at running_time
 * (NONE: now; in the stream, serialized: exactly the next frame) */
gboolean gst_rtframe_sink_request (GstRtFrameSink * self, gboolean start,
    GstClockTime running_time, gboolean serialized, const gchar * by);
gboolean gst_rtframe_sink_record_event (GstRtFrameSink * self,
    GstEvent * event);
/* Recording, or asked to (object lock held) */
gboolean gst_rtframe_sink_record_wanted (GstRtFrameSink * self);
/* render: TRUE when frame_buf is to be written (*flags for it); FALSE when
 * it was held or let go (taken) or the writer failed (*ret) */
gboolean gst_rtframe_sink_record_frame (GstRtFrameSink * self,
    GstBuffer * frame_buf, const RtfFrameTimes * times,
    const RtfFrameOrigin * origin, guint * flags, GstFlowReturn * ret);
void gst_rtframe_sink_record_committed (GstRtFrameSink * self, guint64 seq);
/* The frame render was given the flags for was dropped or refused: a
 * recording's start goes to the next frame taken */
void gst_rtframe_sink_record_not_taken (GstRtFrameSink * self, guint flags);
void gst_rtframe_sink_record_eos (GstRtFrameSink * self);
void gst_rtframe_sink_record_flush (GstRtFrameSink * self);
/* The writer's announcements of a recording, made messages */
void gst_rtframe_sink_recording_started (GstRtFrameSink * self,
    const RtfRecordingInfo * info);
void gst_rtframe_sink_recording_stopped (GstRtFrameSink * self,
    const RtfRecordingInfo * info);

/* ---- gstrtframespread.c ------------------------------------------------ */

/* start(): the spread over self->locations (config as for one location):
 * its first location's writer, or NULL with what failed (*why: the
 * locations disagree; *failed_location, *err, *step: a location could
 * not be opened; neither: the error is posted - a manifest's name holds
 * a running or another recording's manifest) */
RtfWriter *gst_rtframe_sink_spread_new (GstRtFrameSink * self,
    const RtfWriterConfig * config, gchar ** failed_location, gint * err,
    RtfFailStep * step, gchar ** why);
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
    const RtfFrameOrigin * origin, RtfFrame ** frame, RtfWriter ** w);
/* render: frames of a location that failed offered again */
GstFlowReturn gst_rtframe_sink_spread_redo (GstRtFrameSink * self);
/* EOS: 0, -1 flushing, or an errno */
gint gst_rtframe_sink_spread_sync (GstRtFrameSink * self);
/* The stream's figures, from the writer or the spread (object lock) */
void gst_rtframe_sink_writer_stats (GstRtFrameSink * self,
    RtfWriterStats * st, RtfWriterLatency * latency);
/* "locations" and "frames-failed-over" into the stats (object lock) */
void gst_rtframe_sink_spread_stats (GstRtFrameSink * self, GstStructure * s,
    gint64 elapsed_ns);

/* ---- gstrtframesink.c -------------------------------------------------- */

/* Maps a buffer's memories into the frame the writer gave */
gboolean gst_rtframe_sink_attach (RtfFrame * frame, GstBuffer * frame_buf);
/* The alignment of memory the sink allocates (direct I/O's) */
gsize gst_rtframe_sink_memory_alignment (GstRtFrameSink * self);

/* ---- gstrtframemessages.c ---------------------------------------------- */

/* A file (the first, or the next of a set) could not be opened as asked */
void gst_rtframe_sink_post_open_error (GstRtFrameSink * self,
    RtfFailStep step, const gchar * path, gint err, RtfDirectMode direct,
    const RtfXflags * xflags, const gchar * detail);
/* The writer stopped on an I/O error */
void gst_rtframe_sink_post_failure (GstRtFrameSink * self,
    const RtfFailure * failure);
/* The statistics now (call with the object lock, self->writer set); with
 * `interval` the interval figures restart from now */
GstStructure *gst_rtframe_sink_stats (GstRtFrameSink * self,
    const gchar * name, gboolean interval);
/* The same from a snapshot of the writer's figures */
GstStructure *gst_rtframe_sink_stats_of (GstRtFrameSink * self,
    const gchar * name, gboolean interval, const RtfWriterStats * st,
    const RtfWriterLatency * latency);
void gst_rtframe_sink_post_stats (GstRtFrameSink * self);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_PRIVATE_H__ */
