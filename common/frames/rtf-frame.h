/* rtframe: one frame on its way from the streaming thread to the file */
#ifndef __RTF_FRAME_H__
#define __RTF_FRAME_H__

#include <glib.h>
#include <sys/uio.h>

#include "rtf-upstream-gap.h"

G_BEGIN_DECLS
/* Most memory chunks a frame may be made of (GstBuffer allows 16). */
#define RTF_FRAME_MAX_IOV 16
    typedef enum
{
  RTF_FRAME_FREE = 0,           /* cell unused */
  RTF_FRAME_RESERVED,           /* being filled by the producer */
  RTF_FRAME_QUEUED,             /* committed, waiting for the writer */
  RTF_FRAME_IN_FLIGHT,          /* writes submitted, not all completed */
  RTF_FRAME_WRITTEN,            /* every byte of it is in the file */
  RTF_FRAME_DROPPED,            /* taken out before it was submitted */
  RTF_FRAME_FAILED,             /* a write failed, or an earlier one did */
  RTF_FRAME_WAITING             /* only where a miss was seen: the producer
                                 * holds it, waiting for room in the queue */
} RtfFrameState;

/* When a frame came, when it is due, and the producer's own timestamps:
 * one struct wherever a frame's times travel (the queue, the writer, a
 * report of it, its index record) */
typedef struct
{
  gint64 arrival_ns;            /* rtf_clock_now_ns() when it was handed over */
  gint64 deadline_ns;           /* its last byte must be written by then; 0 none */
  /* the producer's timestamps, passed on in reports (G_MAXUINT64: none) */
  guint64 pts, duration, running_time, stream_time;
} RtfFrameTimes;

/* Times that say nothing (no arrival, no deadline, no timestamps) */
static inline void
rtf_frame_times_clear (RtfFrameTimes * t)
{
  t->arrival_ns = t->deadline_ns = 0;
  t->pts = t->duration = t->running_time = t->stream_time = G_MAXUINT64;
}

/* What the producer says of a frame (RtfFrame.flags) */
typedef enum
{
  /* held in memory before a recording started and handed over at the
   * start, ahead of the live frames: a backlog frame
   * (rtf_queue_reserve_backlog()) */
  RTF_FRAME_PRERECORDED = 1 << 0,
  /* the first frame of a recording (an event): it starts a new file of a
   * set, and the writer announces the recording with it */
  RTF_FRAME_EVENT_START = 1 << 1,
  /* written again after its first location of a spread failed
   * (rtf-spread.h): its number may be below the frame's before it */
  RTF_FRAME_FAILED_OVER = 1 << 2,
  /* a spread (rtf-spread.h): the first frame of a recording at this
   * location, not the recording's first (that one is EVENT_START, at
   * whichever location it went): it starts the location's part of the
   * recording - a new file of a set, its figures - but is no recording's
   * first frame in the index */
  RTF_FRAME_PART_START = 1 << 3,
  /* held before its recording like a backlog frame, and written again at
   * another location of a spread after its own failed: queued as a live
   * frame there (PRERECORDED is the queue's: a backlog cell), told and
   * indexed as pre-recorded */
  RTF_FRAME_HELD = 1 << 4
} RtfFrameFlags;

/* The frame was held before its recording (pre-record): what its reports
 * and its index record say */
static inline gboolean
rtf_frame_prerecorded (guint flags)
{
  return (flags & (RTF_FRAME_PRERECORDED | RTF_FRAME_HELD)) != 0;
}

/* The frame begins a recording at its writer (the recording's, or its
 * part at one location of a spread).  A frame failed over begins none:
 * it joins whatever recording the location that takes it has open. */
static inline gboolean
rtf_frame_opens_recording (guint flags)
{
  return (flags & (RTF_FRAME_EVENT_START | RTF_FRAME_PART_START))
      && !(flags & RTF_FRAME_FAILED_OVER);
}

/* What upstream said of a frame, kept in its index record: its sequence
 * number, a timestamp of another clock (a camera's), and the frames
 * upstream lost before it.  The producer's, like the times. */
typedef struct
{
  guint64 offset;               /* upstream's buffer offset, G_MAXUINT64 none */
  guint64 reference_ns;         /* its reference (camera) timestamp, or none */
  RtfUpstreamGap gap;           /* lost before it (how == 0: none) */
} RtfFrameOrigin;

static inline void
rtf_frame_origin_clear (RtfFrameOrigin * o)
{
  o->offset = o->reference_ns = G_MAXUINT64;
  rtf_upstream_gap_clear (&o->gap);
}

typedef struct _RtfFrame RtfFrame;

struct _RtfFrame
{
  /* Filled by the producer before rtf_queue_commit() */
  struct iovec iov[RTF_FRAME_MAX_IOV];
  guint n_iov;
  gsize size;                   /* sum of iov lengths */
  RtfFrameTimes times;
  /* given to rtf_writer_offer(); a gap of a frame dropped before it was
   * written is added to the next frame's (rtf_upstream_gap_merge()) */
  RtfFrameOrigin origin;
  guint64 seq;                  /* frame number, from 0, set by the queue */
  /* What the frames are (the caps, as text), for the index header; the
   * producer keeps it valid until the frame is released.  Frames of a
   * recording that rotates files start a new file when it changes. */
  const gchar *format;
  /* The caps of origin.reference_ns's clock, as text (NULL: none), for
   * the index header of the file the frame starts; kept like format */
  const gchar *reference;
  gboolean split;               /* start a new file with this frame */
  guint flags;                  /* RtfFrameFlags */

  /* Owned by the writer once committed */
  RtfFrameState state;
  guint64 offset;               /* byte offset of the frame in the file */
  gboolean submitted;           /* its writes went to the engine (a backlog
                                 * frame waits for its turn) */
  gint64 submit_ns;             /* when its first write was submitted */
  gint64 complete_ns;           /* when its last write completed */
  guint pending;                /* writes submitted and not completed */
  gint error;                   /* errno of the failure, when FAILED */
  gboolean copied;              /* written from staging memory, not its own */
  gboolean miss_reported;       /* its deadline passed and was reported */
  gboolean handed_back;         /* handed back in flight and taken
                                 * (frame_handed_back): written elsewhere */
  gpointer output;              /* the file it goes to (RtfOutput) */
  guint location;               /* the location of a spread whose writer
                                 * released it (0: not spread), set as it
                                 * is released */
  guint32 checksum;             /* CRC32C of its bytes, when asked for */
  guint64 record_no;            /* its record is the nth of its index */

  guint cell;                   /* which of the queue's frames, stable */
  gpointer user;                /* the producer's data for this cell */
};

/* A frame as seen at one moment, for a report: its deadline passed
 * (WAITING, QUEUED, IN_FLIGHT), it was dropped (DROPPED), or written
 * (WRITTEN: late, or every frame with frame messages on) */
typedef struct
{
  guint64 seq;
  RtfFrameTimes times;
  guint flags;                  /* RtfFrameFlags */
  gint64 detected_ns;           /* when it was seen so (written: completed) */
  gsize size;
  RtfFrameState where;
  guint queued_frames;          /* queue level then: frames not yet taken */
  guint64 queued_bytes;
  guint held_frames;            /* queued + being written */
} RtfFrameReport;

static inline void
rtf_frame_report_init (RtfFrameReport * m, const RtfFrame * f, gint64 when,
    RtfFrameState where, guint queued, guint64 queued_bytes, guint held)
{
  m->seq = f->seq;
  m->times = f->times;
  m->flags = f->flags;
  m->detected_ns = when;
  m->size = f->size;
  m->where = where;
  m->queued_frames = queued;
  m->queued_bytes = queued_bytes;
  m->held_frames = held;
}

G_END_DECLS
#endif /* __RTF_FRAME_H__ */
