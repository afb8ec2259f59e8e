/* rtframe: the writer's types - its configuration, the callbacks that
 * tell its owner what happened, the figures it reports, and the answers
 * of an offer.  What every part of the writer (rtf-writer-private.h) and
 * its owner (rtf-writer.h) share; no functions. */
#ifndef __RTF_WRITER_TYPES_H__
#define __RTF_WRITER_TYPES_H__

#include "rtf-engine.h"
#include "rtf-failure.h"
#include "rtf-file.h"
#include "rtf-file-worker.h"
#include "rtf-histogram.h"
#include "rtf-output.h"
#include "rtf-queue.h"
#include "rtf-regions.h"
#include "rtf-space-guard.h"
#include "rtf-stats.h"

G_BEGIN_DECLS

typedef struct _RtfWriter RtfWriter;

typedef struct
{
  /* the file, or with rotate a pattern (rtf_pattern_check() OK) that
   * rtf_pattern_format() turns into each file's name */
  const gchar *location;
  RtfEngineKind engine;
  RtfDirectMode direct;
  guint io_depth;               /* frames with writes in flight, >= 1 */
  guint max_frames;             /* queue limit (queued + in flight) */
  guint64 max_bytes;            /* queue limit, 0 = none */
  guint64 preallocate;          /* bytes reserved ahead of the writes, 0 off */
  /* memory the producer keeps valid while the writer runs; registered with
   * io_uring (fixed buffers) so frames in it are written without pinning
   * their pages on every write.  NULL: none.  The writer takes a ref. */
  RtfRegions *regions;

  /* files: the first is opened by rtf_writer_new() */
  RtfXflags xflags;             /* XFS flags of every file */
  gboolean index;               /* "<file>.idx" beside each file */
  gboolean checksums;           /* CRC32C of each frame in its record */
  guint64 sync_interval;        /* ns between fdatasyncs, 0: at the end */

  /* rotation (rotate: location is a pattern) */
  gboolean rotate;
  guint64 first_file_number;    /* the number of the first file */
  guint64 max_file_size;        /* bytes, 0: no limit */
  guint64 max_file_duration;    /* ns, 0: no limit */
  guint max_files;              /* files kept, 0: all */
  /* event recording: cells for backlog frames (pre-record) beyond
   * max_frames, 0 none; and whether the first file waits for a recording
   * to reach it like a later file of a set (opened ahead, at its name only
   * with its first frame, deleted if none comes) */
  guint backlog_frames;
  gboolean first_file_ahead;
  /* the first file is prepared beside what its name holds (nothing there
   * is touched) and named only by rtf_writer_name_first_file(): a spread
   * opens every location's first file, then names them all, so a
   * location that cannot open leaves the others' names as they were */
  gboolean first_file_prepared;
  /* frame_unpinned only for a frame behind a backlog frame (a spread's
   * locations: behind any other, a frame ahead that fails leaves it to be
   * written again elsewhere, which needs its bytes; behind a backlog the
   * camera's buffers must go back, and such a frame is lost instead) */
  gboolean unpin_behind_backlog;

  /* with keep_location (a pattern), a ring (rotate): every frame is
   * written, the closed files go as the owner raises the floor, and
   * recordings keep files by linking them (rtf_writer_keep_begin()) into
   * new directories of keep_location, numbered from keep_first_number on;
   * NULL: no ring */
  const gchar *keep_location;
  guint64 keep_first_number;

  /* the free-space guard: bytes kept free on the filesystem (0: off,
   * RTF_SPACE_AUTO: 1 GiB or 5% of the filesystem, the lesser); with
   * rotate the oldest files go to stay above it, else the recording ends
   * before it falls under it */
  guint64 min_free_space;
  /* how the writer's helper threads are started (NULL: GThreads); kept
   * valid until the writer has ended */
  const RtfThreadStarter *threads;
  /* the recording's id, marked on every file and named by every index
   * header; zero: a new one (a spread gives its locations one id) */
  RtfRecordingId recording_id;
} RtfWriterConfig;

typedef enum
{
  RTF_LOG_ERROR,
  RTF_LOG_WARNING,
  RTF_LOG_INFO,
  RTF_LOG_DEBUG,
  RTF_LOG_FRAME                 /* a line per frame (GStreamer's LOG) */
} RtfLogLevel;

/* Which part of the engine a log line comes from: the element gives each
 * a debug category of its own (issue 26) */
typedef enum
{
  RTF_LOG_WRITER,               /* the writer thread: frames, I/O, stops */
  RTF_LOG_FILES,                /* a set's files: opened, split, finished */
  RTF_LOG_SPACE,                /* the free-space guard */
  RTF_LOG_N_PARTS
} RtfLogPart;

/* A recording (an event) of an event recorder: from its first frame
 * (RTF_FRAME_EVENT_START, or PART_START: its part at one location of a
 * spread) to rtf_writer_end_recording() */
typedef struct
{
  guint64 number;               /* recordings started before it, from 0 */
  gboolean part;                /* a spread's: this location's part of a
                                 * recording that began at another's */
  guint location;               /* a spread's: the location (its index) */
  const gchar *path;            /* the file of its first (started) or last
                                 * (stopped) frame */
  guint64 first_seq, last_seq;  /* frame numbers (last: stopped only) */
  guint64 first_running_time, last_running_time;        /* ns or NONE */
  /* stopped only */
  guint64 frames, bytes;        /* written */
  guint64 prerecorded;          /* of those, backlog frames */
  guint64 lost;                 /* handed over, not written (an error) */
} RtfRecordingInfo;

/* What the writer tells its owner.  Every callback may be NULL.  All but
 * frame_done are called with the writer's callback lock held (so that
 * rtf_writer_abandon() can turn them off: after it returns none is called
 * any more); a callback must not call back into the writer.  Write them
 * with designated initializers. */
typedef struct
{
  /* A frame leaves the writer: state is WRITTEN, FAILED or DROPPED.
   * Release what the producer attached.  Written and failed frames: in
   * frame order, on the writer thread (or the thread calling
   * rtf_writer_free() for frames never taken); dropped frames: on the
   * producer's thread, in rtf_writer_offer().  Under the callback lock
   * too, except for frames never taken. */
  void (*frame_done) (RtfFrame * frame, gpointer user_data);
  /* A frame was dropped (leaky): a report of it, and whether its miss was
   * reported before (then it is counted missed already).  On the
   * producer's thread, in rtf_writer_offer(). */
  void (*frame_dropped) (const RtfFrameReport * report,
      gboolean miss_reported_before, gpointer user_data);
  /* The writer stopped on an I/O error; called once, before the producer
   * is refused, after the files were cut back to the frames written
   * before it.  On the writer thread. */
  void (*failed) (const RtfFailure * failure, gpointer user_data);
  /* A line for the log, on whichever thread it happens ... */
  void (*log) (RtfLogPart part, RtfLogLevel level, const gchar * message,
      gpointer user_data);
  /* ... asked first whether the owner wants it (NULL: every line), so that
   * a line not wanted costs no formatting: the per-frame lines are on the
   * hot path.  Without the callback lock: it must not need user_data to
   * stay alive. */
  gboolean (*log_wanted) (RtfLogPart part, RtfLogLevel level,
      gpointer user_data);
  /* A frame's deadline passed before its last byte was written: called when
   * the deadline passes (within the wake-up latency of the writer thread),
   * once per frame, on the writer thread. */
  void (*deadline_missed) (const RtfFrameReport * report, gpointer user_data);
  /* A frame that missed its deadline was written after all: report->where
   * is WRITTEN and report->detected_ns the completion time.  Writer
   * thread. */
  void (*late_completion) (const RtfFrameReport * report, gpointer user_data);
  /* A file got its first frame (writer thread) / was finished, made
   * durable and closed (writer thread, or the file helper thread of a
   * rotated recording). */
  void (*file_opened) (const RtfFileInfo * info, gpointer user_data);
  /* A file of a set whose location has time fields begins with `first`
   * (writer thread, before file_opened; return quickly): the name it
   * wants instead of `proposed` (the pattern's time fields at the
   * frame's arrival, local time), or NULL for proposed.  A name the
   * location pattern does not make for `number` is refused, with a
   * warning, and proposed taken. */
  gchar *(*name_file) (guint64 number, const RtfFrame * first,
      const gchar * proposed, gpointer user_data);
  void (*file_closed) (const RtfFileInfo * info, gpointer user_data);
  /* Every byte of a frame is in the file while frames ahead of it are
   * still being written (a backlog): what the producer attached to it may
   * go now; frame_done follows, in order.  Writer thread. */
  void (*frame_unpinned) (RtfFrame * frame, gpointer user_data);
  /* A recording began: its first frame was laid out in a file.  Ended:
   * its last frame was handed back (rtf_writer_end_recording(), the next
   * recording's start, or the end).  Writer thread. */
  void (*recording_started) (const RtfRecordingInfo * info, gpointer user_data);
  void (*recording_stopped) (const RtfRecordingInfo * info, gpointer user_data);
  /* Upstream lost frames before the frame being offered (origin->gap,
   * counted in the stats): report->seq is the number that frame gets,
   * report->detected_ns its arrival.  Called as the frame is offered,
   * before it waits for room or is dropped, so a full queue does not
   * delay it.  On the producer's thread, in rtf_writer_offer(). */
  void (*upstream_gap) (const RtfFrameReport * report,
      const RtfFrameOrigin * origin, gpointer user_data);
  /* A closed file of a rotated recording was deleted, for max-files or
   * min-free-space (the file helper thread). */
  void (*file_deleted) (const RtfFileDeleted * info, gpointer user_data);
  /* The free space crossed a level (and at the first check, when it is
   * not OK): the writer thread. */
  void (*disk_space) (const RtfSpaceReport * report, gpointer user_data);
  /* rtf_writer_retire(): a frame whose writes are in flight and will
   * never count as written here; TRUE when the owner took it to write
   * elsewhere (then frame->handed_back is set).  Its memory is still being
   * read: what the producer attached stays until frame_done (FAILED)
   * follows, when those writes end.  The writer thread, callback lock
   * held; not turned off by rtf_writer_abandon(). */
  gboolean (*frame_handed_back) (RtfFrame * frame, gpointer user_data);
  /* A ring's file was linked into a recording's directory (a ring:
   * rtf_writer_keep_begin()), or could not be (info->error): the file
   * helper thread. */
  void (*file_kept) (const RtfFileKept * info, gpointer user_data);
} RtfWriterCallbacks;

/* Latency of the frames written so far, in ns */
typedef struct
{
  RtfHistogram arrival_to_done; /* handed over -> last byte written */
  RtfHistogram submit_to_done;  /* first write submitted -> last written */
  RtfHistogram sync_to_done;    /* a sync-interval fdatasync of the file and
                                 * its index: submitted -> both done */
} RtfWriterLatency;

typedef enum
{
  RTF_LEAKY_NO,                 /* wait for room */
  RTF_LEAKY_UPSTREAM,           /* no room: drop the frame offered */
  RTF_LEAKY_DOWNSTREAM          /* no room: drop the oldest queued frame */
} RtfLeaky;

typedef enum
{
  RTF_OFFER_TAKEN,              /* *frame is the producer's to fill; then
                                 * rtf_writer_commit() or _cancel() */
  RTF_OFFER_DROPPED,            /* no room (leaky): the frame offered was
                                 * dropped, reported and counted */
  RTF_OFFER_FLUSHING,           /* a flush ended the wait for room: nothing
                                 * of the frame counted (its upstream gap
                                 * goes with the next frame taken), it
                                 * may be offered again */
  RTF_OFFER_FLUSHING_DROPPED,   /* a flush ended the wait of a frame whose
                                 * missed deadline was told: dropped,
                                 * reported and counted under its number
                                 * (offered again it would take another) */
  RTF_OFFER_CLOSED              /* the writer failed (it said why) */
} RtfOffer;

G_END_DECLS
#endif /* __RTF_WRITER_TYPES_H__ */
