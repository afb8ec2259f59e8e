/* rtframe: the writer engine - takes frames from a producer (the element's
 * streaming thread) and appends them to a file, or a set of files, with
 * aligned writes on a thread of its own.
 *
 * Its parts (docs/design.md, "The writer"):
 *   rtf-writer.c          life cycle: start, the run loop and its phases,
 *                         stop, abandon; the owner's calls
 *   rtf-writer-admit.c    the producer's side: offering a frame (room,
 *                         leaky drops, refusals) and what it counts
 *   rtf-writer-submit.c   I/O: slots, staging and fixed buffers, aligned
 *                         writes and their completions
 *   rtf-writer-release.c  in frame order: deadlines, index records,
 *                         frames handed back
 *   rtf-writer-files.c    the files: a file's first frame, splits,
 *                         preallocation, syncs, sealing at the end
 *   rtf-writer-space.c    the free-space guard: samples, level changes,
 *                         deleting for space, ending before the disk is
 *                         full (decisions: rtf-space-guard.c) */
#ifndef __RTF_WRITER_H__
#define __RTF_WRITER_H__

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

G_BEGIN_DECLS typedef struct _RtfWriter RtfWriter;

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
  RTF_LOG_DEBUG
} RtfLogLevel;

/* A recording (an event) of an event recorder: from its first frame
 * (RTF_FRAME_EVENT_START) to rtf_writer_end_recording() */
typedef struct
{
  guint64 number;               /* recordings started before it, from 0 */
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
  /* A line for the log, on whichever thread it happens. */
  void (*log) (RtfLogLevel level, const gchar * message, gpointer user_data);
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
} RtfWriterCallbacks;

/* Latency of the frames written so far, in ns */
typedef struct
{
  RtfHistogram arrival_to_done; /* handed over -> last byte written */
  RtfHistogram submit_to_done;  /* first write submitted -> last written */
} RtfWriterLatency;

/* Opens the (first) file.  On failure NULL, *err the errno and *step (may
 * be NULL) what failed: OPEN, XFLAGS (the XFS flags were refused) or
 * INDEX (the index file could not be created). */
RtfWriter *rtf_writer_new (const RtfWriterConfig * config,
    const RtfWriterCallbacks * callbacks, gpointer user_data, gint * err,
    RtfFailStep * step);
void rtf_writer_free (RtfWriter * w);
/* With first_file_prepared: the first file takes its name (replacing
 * what is there, as a first file does), before rtf_writer_run(): 0 or an
 * errno (EWOULDBLOCK: another recording holds the name) */
gint rtf_writer_name_first_file (RtfWriter * w);

RtfQueue *rtf_writer_get_queue (RtfWriter * w);
void rtf_writer_get_stats (RtfWriter * w, RtfWriterStats * stats);
void rtf_writer_get_latency (RtfWriter * w, RtfWriterLatency * latency);

/* ---- the producer's side (one thread) --------------------------------- */

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

/* Offers a frame of `size` bytes that arrived with `times` and what
 * upstream said of it (`origin`, NULL: nothing): waits for room
 * (RTF_LEAKY_NO), or drops by `leaky`; each drop is counted, reported
 * (frame_dropped) and, for a queued frame, released (frame_done).  The
 * deadline of a frame waiting for room is watched by the writer thread
 * meanwhile.  An upstream gap in origin is counted and reported
 * (upstream_gap) first; it goes into the index record of this frame, or,
 * when this frame is not written (dropped, refused), of the next frame
 * written. */
RtfOffer rtf_writer_offer (RtfWriter * w, gsize size, RtfLeaky leaky,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame);
/* A frame offered again under the number it had (rtf_writer_number_next()
 * first): a frame failed over from another writer of the same stream.
 * It waits for room, is never dropped, and its upstream gap and (when
 * miss_reported) its missed deadline, told where it was first, are not
 * told or counted again.  FLUSHING or CLOSED: nothing is counted, the
 * frame stays the producer's. */
RtfOffer rtf_writer_offer_again (RtfWriter * w, gsize size,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    gboolean miss_reported, RtfFrame ** frame);
/* The number the next frame offered gets (taken or dropped), instead of
 * the writer's own count: an owner that spreads one stream over several
 * writers numbers the frames itself (rtf-spread-producer.c).  Producer's
 * thread, before rtf_writer_offer(). */
void rtf_writer_number_next (RtfWriter * w, guint64 seq);
/* Hands a filled frame over: it gets its number and the writer is woken. */
void rtf_writer_commit (RtfWriter * w, RtfFrame * frame);
/* Gives back a frame the producer could not fill. */
void rtf_writer_cancel (RtfWriter * w, RtfFrame * frame);
/* Aborts a wait for room (and refuses until unset): flushing. */
void rtf_writer_set_flushing (RtfWriter * w, gboolean flushing);

/* ---- the producer's side: event recording ----------------------------- */

/* A frame the producer keeps in memory before a recording (pre-record):
 * it takes its number (returned) and counts as received; an upstream gap
 * before it (origin, NULL: nothing) is counted and reported now, as
 * rtf_writer_offer() does. */
guint64 rtf_writer_hold (RtfWriter * w, gsize size,
    const RtfFrameOrigin * origin);
/* ... which it lets go unwritten: counted discarded */
void rtf_writer_discard (RtfWriter * w, gsize size);
/* ... or hands over at a start, ahead of the live frames: a backlog frame
 * with the number it took, its times and what upstream said of it
 * (origin, NULL: nothing) (RTF_OFFER_TAKEN, or CLOSED when the writer
 * failed).  Then rtf_writer_commit(). */
RtfOffer rtf_writer_offer_backlog (RtfWriter * w, gsize size, guint64 seq,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame);
/* The recording ends with the last frame committed (last_seq): the writer
 * reports it stopped once that frame is handed back, and finishes its file
 * (a set: the next recording starts the next file). */
void rtf_writer_end_recording (RtfWriter * w, guint64 last_seq);

/* ---- the writer thread ----------------------------------------------- */

/* The body of the writer thread: returns after rtf_writer_shutdown(), or at
 * once when the I/O engine could not be set up. */
void rtf_writer_run (RtfWriter * w);
/* Waits until rtf_writer_run() has set up its engine: 0 or an errno. */
gint rtf_writer_wait_started (RtfWriter * w);
/* Asks the thread to write what it holds, finish the file and return. */
void rtf_writer_shutdown (RtfWriter * w);

/* Waits until rtf_writer_run() has returned, at most timeout_ns (< 0: no
 * limit).  TRUE when it has. */
gboolean rtf_writer_wait_finished (RtfWriter * w, gint64 timeout_ns);

/* Gives up on a writer whose thread is still running (a stalled disk at
 * stop): from now on no frame is counted written and no callback but
 * frame_done is called.  The frames not taken are released at once, as
 * lost; the thread lets the writes in flight end in the kernel, cuts the
 * file back to the frames written before this call, and frees the writer
 * and then calls notify (data) itself.  `final` receives the last
 * accounting, in which every frame held counts as lost.  FALSE (nothing
 * done) when the thread has already finished: rtf_writer_free() it. */
gboolean rtf_writer_abandon (RtfWriter * w, GDestroyNotify notify,
    gpointer data, RtfWriterStats * final, RtfWriterLatency * latency);

/* Takes a writer out of use while its thread runs (a disk that stalls,
 * mid-recording): as rtf_writer_abandon() - nothing more is counted
 * written, no callback but frame_done and frame_handed_back is called, the
 * frames not taken are released at once as lost, the file is cut back to
 * the frames written before this call - but the owner keeps the writer:
 * the thread hands back the frames in flight (frame_handed_back), lets their
 * writes end, then returns; join it and rtf_writer_free() it, or
 * rtf_writer_abandon() it at stop.  FALSE (nothing done) when it has
 * failed or finished already.  The producer's thread. */
gboolean rtf_writer_retire (RtfWriter * w);
/* Waits until a retired writer's thread has handed back its frames in
 * flight (it does at its next turn, woken by the retirement) */
void rtf_writer_wait_given_back (RtfWriter * w);

/* Streaming-thread side: waits until every frame handed over is written,
 * then the file is cut to its exact size and fdatasync'ed.  0, or the
 * errno that failed; -1 when aborted by flushing. */
gint rtf_writer_sync (RtfWriter * w);
/* The same, waiting until end_us (g_get_monotonic_time()) at most:
 * RTF_WRITER_SYNC_WAITING when it was not done by then (call again) */
#define RTF_WRITER_SYNC_WAITING (-2)
gint rtf_writer_sync_until (RtfWriter * w, gint64 end_us);

G_END_DECLS
#endif /* __RTF_WRITER_H__ */
