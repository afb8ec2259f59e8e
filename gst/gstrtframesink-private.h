/* rtframe: rtframesink's insides, shared by its files: its type, what an
 * instance holds (field by field) and the types the files pass each
 * other.  Types only: each file's functions are declared in the header
 * named after it.  The files stand on floors, each calling only files
 * below it:
 *
 * the element, its core (GObject's, GstElement's and GstBaseSink's
 * methods): gstrtframesink.c on top, calling the four beside it
 *   gstrtframesink.c          class, instance, signals; start and stop
 *   gstrtframesinkprops.c     its properties
 *   gstrtframesinkrender.c    render: each buffer checked, stamped and
 *                             offered to the writer; unlock
 *   gstrtframesinkevents.c    caps, the allocation query, the
 *                             rtframe-record event, a flush, EOS
 *   gstrtframesinkcallbacks.c what the writer tells (its callbacks)
 * its parts, which the core calls and which call no part
 *   gstrtframerecord.c        event recording: record, start/stop-
 *                             recording, the rtframe-record event,
 *                             frames held for pre-record, a backlog
 *   gstrtframespread.c        several locations (locations=): the spread,
 *                             frames placed and failed over, manifests
 *   gstrtframetasks.c         its threads: the writer task, the reporter
 *                             task, the writer's helpers, a writer given
 *                             up on at stop
 * the helpers of all above, each calling only those after it
 *   gstrtframememory.c        aligned pools; what a frame carries of the
 *                             element (its buffer mapped, caps, reference)
 *   gstrtframesplits.c        splits asked at running times, and the
 *                             frame (or recording's file) each is done by
 *   gstrtframeparts.c         event recording with locations: a recording
 *                             in parts, one at each location, and its
 *                             messages
 *   gstrtframefigures.c       the stream's figures, the stats message
 *   gstrtframemessages.c      messages, errors, the reporter's queue
 * and the ground, which knows no sink: gstrtframestats.c (the stats
 * structure), gstrtframepath.c, gstrtframecaps.c, gstrtframeallocator.c,
 * gstrtframeenums.c */
#ifndef __GST_RTFRAME_SINK_PRIVATE_H__
#define __GST_RTFRAME_SINK_PRIVATE_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

#include "gstrtframecaps.h"
#include "gstrtframeenums.h"
#include "rtf-events.h"
#include "rtf-recorder.h"
#include "rtf-upstream-gap.h"
#include "rtf-writer.h"
#include "rtf-spread.h"

G_BEGIN_DECLS
#define GST_TYPE_RTFRAME_SINK (gst_rtframe_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstRtFrameSink, gst_rtframe_sink, GST, RTFRAME_SINK,
    GstBaseSink);

GST_DEBUG_CATEGORY_EXTERN (gst_rtframe_sink_debug);

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
typedef struct
{
  guint64 start_asked, stop_asked;      /* running times; NONE: "now" */
  guint64 start_from;           /* frames from here on are its */
  guint prerecorded;            /* frames held that went first */
  guint64 prerecorded_from;     /* the running time of the oldest */
  const gchar *stop_reason;     /* static: "stop-recording", "eos", ... */
  guint64 serial;               /* its span's (0: none) */
  gchar id[RTF_RECORDING_ID_MAX];       /* given by its start */
} GstRtFrameRecordAsk;
typedef struct _GstRtFrameWriterRun GstRtFrameWriterRun;
typedef struct _GstRtFrameParts GstRtFrameParts;

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
  gchar record_id[RTF_RECORDING_ID_MAX];        /* ... and its id */
  guint64 pre_record_time;
  guint64 pre_record_max_bytes;
  gchar *keep_location;         /* a ring on disk: each recording's
                                 * directory (gstrtframering.c) */
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
  GArray *split_times;          /* GstClockTime, sorted: the running times
                                 * split-at-running-time asked for (object
                                 * lock; cleared at READY) */
  gint n_split_times;           /* atomic: their number, read unlocked */
  gboolean *split_owed;         /* with locations: each location splits at
                                 * its next frame (streaming thread) */
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
  /* with locations: the recording on in parts, one at each location
   * (gstrtframeparts.c; start .. after the writers end) */
  GstRtFrameParts *parts;
  guint64 recordings_marked;    /* recordings whose first frame went */
  guint64 hold_copies;          /* frames copied into hold_pool */
  /* what a recording was asked with, for its messages (record_lock):
   * recording number -> GstRtFrameRecordAsk, from its first frame until
   * its stop is told (many may start before the writer tells the first:
   * recordings asked in the past, each its backlog alone) */
  GMutex record_lock;
  GHashTable *asked;
  /* a ring on disk (gstrtframering.c; start .. stop, streaming thread):
   * whether it is on, the next recording directory's number, and the
   * recording keeping files now - its first frame and what it holds */
  gboolean ring;
  guint64 keep_next;
  guint64 ring_first_file;      /* the ring's first file: after those there */
  guint64 ring_gone_upto;       /* (atomic) min-free-space took frames up to
                                 * this one a recording could still want
                                 * (G_MAXUINT64: none) */
  guint64 keep_first, keep_last;
  guint64 keep_frames, keep_bytes, keep_prerecorded, keep_last_rt;
  gboolean ring_hold;           /* the frame being offered is held */
  RtfFrameTimes ring_times;     /* ... with these times */
  gsize ring_size;              /* ... and size */
  guint64 ring_floor;           /* (atomic) no recording wants an older
                                 * frame: the file helper's deletions for
                                 * space tell when they go past it */
  gint ring_short_told;         /* (atomic) the ring was short: said once */

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
  guint64 frame_size;           /* bytes of a frame as recorded, from the
                                 * caps (0 before): the stats' copy of
                                 * format.frame_size, the streaming
                                 * thread's */
  gdouble frame_rate;           /* the caps' frames a second (0: none, or
                                 * variable) */
};

G_END_DECLS
#endif /* __GST_RTFRAME_SINK_PRIVATE_H__ */
