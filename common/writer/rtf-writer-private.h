/* rtframe: the writer engine's insides, shared by its files (their list
 * is in rtf-writer.h).  Not for use outside common/writer/rtf-writer*.c. */
#ifndef __RTF_WRITER_PRIVATE_H__
#define __RTF_WRITER_PRIVATE_H__

#include "rtf-file-worker.h"
#include "rtf-layout.h"
#include "rtf-writer.h"

G_BEGIN_DECLS
/* Longest single write handed to the engine (io_uring takes 32-bit
 * lengths, pwrite stops at 2 GiB). */
#define RTF_WRITER_MAX_IO_CHUNK ((gsize) 1 << 30)
/* What a step of the run loop returns to end the loop */
#define RTF_WRITER_STOP G_GINT64_CONSTANT (-2)
/* Where the writer thread is in its life (under lock).  One owner thread
 * and the writer thread move it:
 *   STARTING -> RUNNING -> FAILED -> REPORTED -> DONE
 *   STARTING -> DONE                (the I/O engine could not be set up)
 *   RUNNING -> ABANDONED -> DONE    (the owner gave up at stop-timeout,
 *                                    or retired it: a disk that stalls)
 *   ABANDONED -> FAILED             (an error while it drains)
 * The writer thread's loop does what its phase says (rtf_writer_run()). */
    typedef enum
{
  RTF_PHASE_STARTING,           /* made; the thread has not set up its engine */
  RTF_PHASE_RUNNING,            /* takes frames and writes them */
  RTF_PHASE_FAILED,             /* an I/O error: takes nothing more, lets the
                                 * writes in flight end */
  RTF_PHASE_REPORTED,           /* the failure was told and the files cut:
                                 * what is still handed over is lost */
  RTF_PHASE_ABANDONED,          /* the owner gave up: the writes in flight
                                 * end, then the files are cut back to what
                                 * it was told */
  RTF_PHASE_DONE                /* rtf_writer_run() returned */
} RtfWriterPhase;

/* Where a write of a frame is */
typedef enum
{
  RTF_OP_PLANNED,               /* laid out, not submitted yet */
  RTF_OP_ACTIVE,                /* submitted, completion pending */
  RTF_OP_DONE,                  /* completed */
  RTF_OP_CANCELLED              /* not needed: the next frame's HEAD writes
                                 * its block (a TAIL of a frame whose turn
                                 * had not come when the next was laid out) */
} RtfOpState;

typedef struct
{
  RtfIoKind kind;               /* RTF_IO_WRITE: tags are WriteOp or RtfIoTag */
  RtfFrame *frame;
  /* a HEAD that carries the previous frame's tail in place of that frame's
   * cancelled TAIL: completes that frame too */
  RtfFrame *also;
  RtfOutput *out;
  RtfSegmentSource source;
  gsize frame_offset, frame_length;     /* STAGING: copied when submitted */
  const guint8 *buf;
  guint64 offset;
  gsize length, done;
  RtfOpState state;
} WriteOp;

/* One taken frame's writes, laid out when it is taken - in frame order,
 * so its place in the file and the bytes its HEAD carries are known then -
 * and submitted then, or (a backlog frame) when its turn comes.  One per
 * queue cell (RtfFrame.cell). */
typedef struct
{
  WriteOp ops[RTF_LAYOUT_MAX_SEGMENTS];
  guint n_ops;
  guint own_left;               /* its ops not completed, cancelled ones
                                 * not counted: it holds a turn until 0 */
  guint8 *head_block;           /* the previous tail + this frame's head */
  guint8 *tail_block;           /* this frame's last partial block */
  gint staging;                 /* the staging buffer it holds, -1 none */
} FramePlan;

/* Aligned memory a frame is copied into when it cannot be written from
 * its own (n_slots of them: one per frame with writes in flight) */
typedef struct
{
  guint8 *buf;
  gsize size;
  gboolean used;
  gboolean registered;          /* fixed buffer RTF_REGIONS_MAX + its index */
} Staging;

/* Locks, in the order they may be taken (docs/design.md, "Threads and
 * locks"): cb_lock, then lock, then the queue's own.  The writer thread
 * owns everything marked "writer thread" and touches it without a lock. */
struct _RtfWriter
{
  /* set at rtf_writer_new(), read-only after */
  RtfWriterConfig config;
  gchar *location;              /* config.location points here */
  RtfWriterCallbacks cb;
  gpointer user_data;
  RtfQueue *queue;              /* frames from the producer (its own lock) */
  gsize buf_align;              /* alignment of the writer's own buffers */
  gsize block, mem_align;       /* of the first file; a set shares them */
  gboolean stream;              /* a pipe or character device: no index,
                                 * no sync, one write in flight */
  gboolean device;              /* a block device: no index, never cut */
  RtfOutputConfig out_config;   /* how every file is opened */
  guint n_slots;                /* frames with writes in flight at most */
  guint backlog_turns;          /* of those, backlog frames at most: the
                                 * rest stay free for live frames */

  /* lock: the life cycle, the figures */
  GMutex lock;
  GCond cond;                   /* phase changes */
  RtfWriterPhase phase;
  gint start_error;             /* setting up the engine failed with it */
  RtfWriterStats stats;
  RtfWriterLatency latency;

  /* cb_lock: held across every callback but frame_done for never-taken
   * frames, so rtf_writer_abandon() can turn them off for good */
  GMutex cb_lock;
  gboolean callbacks_on;        /* the owner still listens */
  gboolean deletes_on;          /* the file worker may delete (off once the
                                 * owner retires or abandons the writer) */
  gboolean deleting;            /* the file worker is deleting a file: its
                                 * file_deleted is told even if the writer
                                 * is retired meanwhile; abandon waits for
                                 * it on deleting_done */
  GCond deleting_done;
  gint give_back;               /* atomic: retired, the frames in flight
                                 * are to be handed back (frame_handed_back) */

  /* lifetime: the owner's reference, and the thread's once abandoned
   * (atomic); abandon_notify runs when the last one goes */
  gint refs;
  gboolean thread_holds_ref;    /* under lock: abandoned, the thread frees */
  GDestroyNotify abandon_notify;
  gpointer abandon_data;

  /* writer thread: files (cur is opened by rtf_writer_new()) */
  RtfOutput *cur;               /* where new frames go */
  RtfOutput *prev;              /* the previous file, frames in flight */
  RtfFileWorker *worker;        /* rotation only: the file helper */
  RtfFrame *waiting;            /* popped, waits for the next file */
  gint error;                   /* the errno that stopped it, 0 none */
  RtfFailStep fail_step;        /* ... and where */
  gchar *fail_path;             /* ... on which file (NULL: the current) */

  /* writer thread: recordings (events).  Taken: the count of those
   * started; released: the one whose frames are being handed back */
  guint64 recordings_started;
  gboolean rec_open;
  guint64 rec_number;
  RtfRecordingInfo rec;         /* its figures so far (path: rec_path) */
  gchar *rec_path;
  guint64 last_released_seq;    /* G_MAXUINT64: none yet */
  gboolean finish_pending;      /* a recording of a set ended: its file is
                                 * finished once the next one is ready */
  /* a ring (rtf-writer-ring.c): the asks not yet taken (under lock,
   * Ask), and on the writer thread the recording keeping files now */
  GQueue ring_asks;
  guint64 floor_asked;          /* the newest floor, not taken yet when */
  gboolean floor_pending;       /* ... pending */
  gchar *keep_location;         /* config.keep_location's, owned */
  gboolean keep_open;
  /* under lock: set by the producer (rtf_writer_end_recording()) */
  guint64 end_seq;              /* last frame of a recording that ended,
                                 * G_MAXUINT64 none */

  /* writer thread: durability */
  gint64 last_sync_ns;
  gint syncs_pending;           /* fdatasyncs in flight */
  gint64 sync_started;
  guint64 sync_covers;          /* frames the syncs in flight make durable */
  guint64 released_written;     /* frames released written, all files */

  /* writer thread: I/O */
  RtfEngine *engine;
  FramePlan *plans;             /* one per queue cell */
  guint8 *blocks;               /* their head and tail blocks */
  Staging *staging;             /* n_slots of them */
  RtfFrame **in_flight;         /* taken frames, oldest first (a ring of
                                 * ring_size: every cell of the queue) */
  guint ring_size;
  guint if_first;
  guint frames_in_flight;
  guint n_recorded;             /* of those, the first ones done and
                                 * recorded in their index */
  guint frames_active;          /* of those, with writes in flight (a turn) */
  guint backlog_active;         /* ... backlog frames among them */
  guint n_unsubmitted;          /* laid out, waiting for their turn */
  guint backlog_taken;          /* backlog frames taken, not released */
  guint heads_waiting;          /* HEADs waiting for an earlier write to the
                                 * same block */
  guint ops_in_flight;          /* engine operations not yet completed */
  RtfFrame *last_planned;       /* the frame laid out last in cur, while
                                 * taken: its TAIL may still be cancelled */
  guint8 *carry;                /* file bytes of cur's last partial block */
  gsize carry_len;
  gboolean prefix_broken;       /* a frame was lost: no later one counts */
  gboolean lost_after_error;    /* after an error, a written frame that
                                 * cannot be found (its file never given
                                 * its name, its index record not on
                                 * file) was released lost: no later one
                                 * counts written (rtf-writer-release.c) */
  RtfCompletion *completions;   /* scratch for the engine's reap */
  RtfFrameReport *misses;       /* scratch for rtf_queue_collect_missed() */
  guint max_misses;
  /* fixed buffers: regions 0 .. n_regions - 1 of config.regions (those
   * seen so far), each registered when the first write from it goes out;
   * then each slot's staging memory */
  gpointer reg_base[RTF_REGIONS_MAX];
  gsize reg_size[RTF_REGIONS_MAX];
  gboolean reg_done[RTF_REGIONS_MAX];
  guint n_regions;
  gboolean registration_off;

  /* producer thread: an upstream gap before a frame that was not taken
   * (dropped, refused), for the next frame taken */
  RtfUpstreamGap gap_carry;
  /* writer thread: the free-space guard (rtf-writer-space.c) */
  RtfSpaceGuard space;
  gboolean space_on;            /* a file on a filesystem that counts */
  gboolean space_now;           /* check at the next turn (a new file) */
  gboolean space_room_asked;    /* a make_room is out */
  /* ... its ledger (issue 23: flat out, the guard sampled by time let the
   * writer run into ENOSPC before a deletion landed): what the writer may
   * still allocate (frame bytes past what is reserved, reservations it
   * makes or grants the helper) before it must look at statfs again;
   * a frame with no room yet is held (in w->waiting, like a frame whose
   * file is not open) until a deletion or a write in flight makes room */
  gint64 space_budget;
  RtfFrame *space_held;         /* the frame held for room, or NULL */
  RtfFrame *space_admitted;     /* the last frame admitted (with its seq:
                                 * a frame that waits for its file is not
                                 * counted twice) */
  guint64 space_admitted_seq;
  gint64 space_retry_ns;        /* a deletion gave nothing back (its files
                                 * in use): not asked again before then */
  guint64 space_holds;          /* frames held for room (log) */
};

/* ---- rtf-writer.c: life cycle, callbacks --------------------------- */

/* A line of the writer's part, or of `part` (rtf-writer-report.c); formatted
 * only when the owner wants it (cb.log_wanted) */
void
rtf_writer_log (RtfWriter * w, RtfLogLevel level, const gchar * format, ...)
G_GNUC_PRINTF (3, 4);
     void rtf_writer_log_in (RtfWriter * w, RtfLogPart part,
    RtfLogLevel level, const gchar * format, ...) G_GNUC_PRINTF (4, 5);
/* Runs `call` (a callback) with the callback lock held, unless the owner
 * has turned callbacks off: TRUE when it ran */
#define RTF_WRITER_CALLBACK(w, name, ...) \
  G_STMT_START { \
    if ((w)->cb.name) { \
      g_mutex_lock (&(w)->cb_lock); \
      if ((w)->callbacks_on) \
        (w)->cb.name (__VA_ARGS__, (w)->user_data); \
      g_mutex_unlock (&(w)->cb_lock); \
    } \
  } G_STMT_END
/* Stops the writer on an I/O error of `step` (frame: the one that failed,
 * or NULL): RUNNING or ABANDONED -> FAILED; the first error is the one
 * reported.  path NULL: the current file. */
     void rtf_writer_fail_at (RtfWriter * w, RtfFailStep step, gint err,
    const gchar * path, RtfFrame * frame);
     RtfWriterPhase rtf_writer_phase (RtfWriter * w);

/* ---- rtf-writer-submit.c: I/O ------------------------------------- */

     gboolean rtf_writer_plans_new (RtfWriter * w);
     void rtf_writer_plans_free (RtfWriter * w);
     guint rtf_writer_engine_entries (RtfWriter * w);
     void rtf_writer_learn_new_regions (RtfWriter * w);
/* Lays f out as aligned writes at the end of the current file; it joins
 * the frames in flight.  A live frame's writes go at once (the writer
 * takes one only when it has a turn free); a backlog frame's wait for
 * rtf_writer_submit_ready(). */
     void rtf_writer_take_frame (RtfWriter * w, RtfFrame * f);
/* Submits what may go now: HEADs whose block is free, live frames, then
 * backlog frames while they have turns. */
     void rtf_writer_submit_ready (RtfWriter * w);
/* After a failure: writes never submitted never will be; their frames
 * are lost, so the ones before them can be released. */
     void rtf_writer_drop_planned (RtfWriter * w);
/* A turn is free: a frame's writes may go */
     gboolean rtf_writer_has_turn (RtfWriter * w);
/* A live frame may be taken */
     gboolean rtf_writer_may_take_live (RtfWriter * w);
/* Waits up to timeout (ns, -1: no limit, 0: not at all) for completions
 * and dispatches them.  Returns how many. */
     guint rtf_writer_reap (RtfWriter * w, gint64 timeout);

/* ---- rtf-writer-release.c: in frame order ---------------------------- */

     gint64 rtf_writer_check_deadlines (RtfWriter * w);
     void rtf_writer_frame_written (RtfWriter * w, RtfFrame * f);
     void rtf_writer_submit_index (RtfWriter * w, RtfOutput * o);
     void rtf_writer_release_done (RtfWriter * w);
     void rtf_writer_release_lost (RtfWriter * w, RtfFrame * f);
     void rtf_writer_release_queued_as_lost (RtfWriter * w);
/* The same from the owner's thread (rtf_writer_abandon(), _retire()):
 * the frames still queued released lost without touching the recording
 * figures the writer thread keeps (release_queued_as_lost() did, racing
 * the writer thread's own releases: a recording's path freed twice) */
     void rtf_writer_drop_queued (RtfWriter * w);

/* Recordings: the one whose frames are handed back, and its end */
     void rtf_writer_recording_release (RtfWriter * w, RtfFrame * f);
     void rtf_writer_recording_check_end (RtfWriter * w);
     void rtf_writer_recording_close (RtfWriter * w);

/* ---- rtf-writer-ring.c: a ring and what recordings keep of it --------- */
     void rtf_writer_ring_take (RtfWriter * w, guint64 seq);
     void rtf_writer_ring_file_begun (RtfWriter * w);
     void rtf_writer_ring_end (RtfWriter * w);
     void rtf_writer_ring_clear (RtfWriter * w);

/* ---- rtf-writer-files.c: the files --------------------------------- */

     void rtf_writer_begin_file (RtfWriter * w, RtfFrame * f);
     gboolean rtf_writer_needs_split (RtfWriter * w, const RtfFrame * f);
     gboolean rtf_writer_start_next_file (RtfWriter * w);
     void rtf_writer_retire_prev (RtfWriter * w);
     void rtf_writer_reserve_ahead (RtfWriter * w);
     void rtf_writer_maybe_sync (RtfWriter * w);
     gint64 rtf_writer_sync_wait (RtfWriter * w, gint64 wait);
     void rtf_writer_check_file_helper (RtfWriter * w);
     gint rtf_writer_seal_outputs (RtfWriter * w);
     gint rtf_writer_end_at_eos (RtfWriter * w);
     void rtf_writer_close_files (RtfWriter * w);
/* A recording ended in cur (a set): cur is finished, the next file made
 * current, unreached until the next recording's first frame */
     void rtf_writer_finish_recording_file (RtfWriter * w);
     void rtf_writer_file_closed (RtfWriter * w, RtfOutput * o, gint err);

/* ---- rtf-writer-space.c: the free-space guard ---------------------- */

/* What the first file may reserve at open: preallocate, or no more than
 * keeps the filesystem of path above min-free-space */
guint64 rtf_writer_space_first_reserve (RtfWriter * w, const gchar * path,
    guint64 want);
/* At the start of the thread (after the file helper): the first check */
void rtf_writer_space_start (RtfWriter * w);
/* A check when due: returns wait shortened to the next one */
gint64 rtf_writer_space_step (RtfWriter * w, gint64 wait);
/* A file got its first frame: check at the next turn */
void rtf_writer_space_new_file (RtfWriter * w);
/* How much of `want` bytes cur may reserve ahead now */
guint64 rtf_writer_space_reserve_limit (RtfWriter * w, guint64 want);
/* The guard ended the recording: its figures for the owner */
void rtf_writer_space_failure (RtfWriter * w, RtfFailure * failure);
/* Whether f (going into cur, or with split into the next file) has room
 * on the filesystem above min-free-space: its bytes past what is reserved
 * are taken from the ledger.  FALSE: it waits (w->space_held) - a
 * deletion was asked for, or writes in flight or a file being finished
 * will give room back - or, with none of those, the recording was ended
 * (w->error).  Called by rtf_writer_needs_split(). */
gboolean rtf_writer_space_admit (RtfWriter * w, const RtfFrame * f,
    gboolean split);
/* Of `want` bytes the next file may reserve when opened ahead: what the
 * ledger grants (taken from it), and given back when not used */
guint64 rtf_writer_space_grant (RtfWriter * w, guint64 want);
void rtf_writer_space_ungrant (RtfWriter * w, guint64 grant);

G_END_DECLS
#endif /* __RTF_WRITER_PRIVATE_H__ */
