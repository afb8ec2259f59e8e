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
#include "gstrtframecaps.h"
#include "gstrtframeenums.h"
#include "rtf-events.h"
#include "rtf-recorder.h"
#include "rtf-upstream-gap.h"
#include "rtf-writer.h"
#include "rtf-spread.h"

G_BEGIN_DECLS GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_sink_debug);

/* frame events waiting to be posted (a fixed ring: the writer never
 * allocates for them); more in a burst are counted in messages-lost */
#define EVENT_RING_SIZE 4096
/* popped and posted at once by the reporter */
#define EVENT_BATCH 64

typedef struct _GstRtFrameMapping GstRtFrameMapping;

/* What the element attached to a queue cell: the buffer and its
 * mappings, kept until the writer is done with the frame. */
struct _GstRtFrameMapping
{
  GstBuffer *buffer;
  GstMemory *mem[RTF_FRAME_MAX_IOV];
  GstMapInfo map[RTF_FRAME_MAX_IOV];
  guint n_map;
};

/* What a recording was asked with (start-recording, stop-recording, the
 * record property or the rtframe-record event), kept for the messages
 * that announce it once the writer has its file */
#define GST_RTFRAME_RECORD_ASKED 16     /* recordings remembered */
typedef struct
{
  guint64 start_asked, stop_asked;      /* running times; NONE: "now" */
  guint64 start_from;           /* frames from here on are its */
  guint prerecorded;            /* frames held that went first */
  guint64 prerecorded_from;     /* the running time of the oldest */
  const gchar *stop_reason;     /* static: "stop-recording", "eos", ... */
} GstRtFrameRecordAsk;
typedef struct _GstRtFrameWriterRun GstRtFrameWriterRun;

struct _GstRtFrameSink
{
  GstBaseSink parent;

  /* properties, under the object lock */
  gchar *location;
  guint max_size_buffers;
  guint64 max_size_bytes;
  guint io_depth;
  GstRtFrameIoEngine io_engine;
  GstRtFrameDirect direct;
  guint64 preallocate;
  guint64 deadline;             /* ns, 0 = none; may change while PLAYING */
  GstRtFrameLeaky leaky;
  guint64 stats_interval;
  gint frame_messages;          /* atomic: the writer thread reads it */
  GstRtFrameThreadPolicy thread_policy;
  gint thread_priority;
  gchar *thread_cpus;
  /* files: rotation, index, durability, XFS */
  guint64 max_file_size;
  guint64 max_file_duration;
  guint max_files;
  guint start_index;
  gboolean index;
  gboolean checksums;
  guint64 sync_interval;
  gboolean realtime;
  guint64 extent_size_hint;
  /* event recording (gstrtframerecord.c) */
  gboolean record;              /* at start; then the recorder's */
  guint64 pre_record_time;
  guint64 pre_record_max_bytes;
  /* which GstReferenceTimestampMeta is kept (NULL: the first a buffer
   * carries, then the ones of its caps) */
  GstCaps *reference_timestamp_caps;
  gchar *refused_caps;          /* the last caps refused and named on the
                                 * bus (object lock) */
  gint64 min_free_space;        /* bytes, 0 off, -1 auto */
  /* several disks, one stream (gstrtframespread.c): NULL or the location
   * patterns, one per disk (then location is not used) */
  gchar **locations;
  GstRtFramePlacement placement;
  guint64 location_timeout;     /* ns, 0: a slow location is never left */

  /* the memory of the pools it proposes; outlives every writer, which
   * registers it (GstRtFrameAllocator) */
  GstAllocator *allocator;

  /* negotiated, streaming thread */
  GstRtFrameFormat format;
  gchar *format_text;           /* the caps as text (GRefString), frames
                                 * carry a reference to the index header */
  gboolean rotate;              /* location is a pattern (start .. stop) */
  gint split_pending;           /* atomic: split-now was emitted */
  GstBufferPool *repack_pool;
  /* what upstream says of each frame (start .. stop) */
  RtfGapDetector gaps;          /* frames lost before the sink */
  GstCaps *reference_caps;      /* the reference timestamps kept: the
                                 * property's, or the first a buffer had */
  gchar *reference_text;        /* ... as text (GRefString) for the index
                                 * header; NULL until known */

  /* running (start .. stop) */
  RtfWriter *writer;            /* under the object lock */
  GstRtFrameMapping *mappings;  /* one per queue cell */
  /* with locations: the spread (under the object lock, like writer, which
   * is then its first location's; it keeps the other locations' mappings) */
  RtfSpread *spread;
  /* frames failed over from a location that failed, waiting for render
   * (or EOS) to offer them again (redo_lock) */
  GMutex redo_lock;
  GQueue redo;
  GstTask *task;
  GstRtFrameWriterRun *run;     /* the task's data */
  RtfThreadStarter helper_threads;      /* the writer's helpers as tasks */
  guint64 stop_timeout;
  guint64 frames_repacked;
  RtfWriterStats last_stats;    /* of the last run, after stop */
  GstStructure *last_stats_structure;

  /* event recording (gstrtframerecord.c): the recorder (start .. stop,
   * its own lock), and on the streaming thread the memory frames are held
   * in (caps .. stop), whether a recording's first frame went, the number
   * of the last frame handed over */
  RtfRecorder *recorder;
  GstBufferPool *hold_pool;
  guint hold_frames;            /* buffers of hold_pool */
  guint start_carry;            /* RTF_FRAME_EVENT_START of a recording
                                 * whose first frame was not taken
                                 * (streaming thread) */
  gboolean recording_open;
  guint64 last_seq;
  guint64 recordings_marked;    /* recordings whose first frame went */
  guint64 hold_copies;          /* frames copied into hold_pool */
  /* what a recording was asked with, for its messages (record_lock) */
  GMutex record_lock;
  GstRtFrameRecordAsk asked[GST_RTFRAME_RECORD_ASKED];

  /* frame events: writer/streaming thread -> reporter task -> bus */
  RtfEvents *events;
  RtfEvent *event_batch;
  GstTask *reporter;
  GRecMutex reporter_task_lock;
  GMutex report_lock;           /* held while a batch is popped and posted */
  GMutex file_messages_lock;
  GQueue file_messages;         /* file-opened/closed, waiting to be posted */
  gint reporter_stop;

  /* under stats_lock */
  GMutex stats_lock;
  gint64 start_ns;
  guint64 events_overflowed;
  guint64 interval_bytes;       /* bytes-written at the last stats message */
  gint64 interval_start;
};

/* ---- gstrtframesinkprops.c ------------------------------------------- */

void gst_rtframe_sink_install_properties (GObjectClass * gobject_class);
void gst_rtframe_sink_init_properties (GstRtFrameSink * self);
void gst_rtframe_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_rtframe_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* ---- gstrtframetasks.c ----------------------------------------------- */

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
/* The tasks' objects go, once joined (or the writer's given up) */
void gst_rtframe_sink_release_tasks (GstRtFrameSink * self);

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

/* start(): the spread over self->locations (config and writer_callbacks as
 * for one location): its first location's writer, or NULL with what
 * failed (*why: the
 * locations disagree; *failed_location, *err, *step: a location could
 * not be opened; neither: the error is posted - a manifest's name holds
 * a running or another recording's manifest) */
RtfWriter *gst_rtframe_sink_spread_new (GstRtFrameSink * self,
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
    const RtfFrameOrigin * origin, RtfFrame ** frame, RtfWriter ** w);
/* render: frames of a location that failed offered again */
GstFlowReturn gst_rtframe_sink_spread_redo (GstRtFrameSink * self);
/* EOS: 0, -1 flushing, or an errno */
gint gst_rtframe_sink_spread_sync (GstRtFrameSink * self);

/* ---- gstrtframemessages.c ---------------------------------------------- */

/* A file (the first, or the next of a set) could not be opened as asked */
void gst_rtframe_sink_post_open_error (GstRtFrameSink * self,
    RtfFailStep step, const gchar * path, gint err, RtfDirectMode direct,
    const RtfXflags * xflags, const gchar * detail);
/* The writer stopped on an I/O error */
void gst_rtframe_sink_post_failure (GstRtFrameSink * self,
    const RtfFailure * failure);
/* Queues msg for the reporter task, which posts it in order */
void gst_rtframe_sink_queue_message (GstRtFrameSink * self, GstMessage * msg);

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_PRIVATE_H__ */
