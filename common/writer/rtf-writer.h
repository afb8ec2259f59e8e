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

#include "rtf-writer-types.h"

G_BEGIN_DECLS

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
/* Hands a filled frame over: it gets its number (returned: the frame is
 * the writer's from now on) and the writer is woken. */
guint64 rtf_writer_commit (RtfWriter * w, RtfFrame * frame);
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
 * (origin, NULL: nothing): TAKEN (then rtf_writer_commit()), DROPPED (no
 * cell free: counted discarded), or CLOSED when the writer failed - the
 * frame is still held (let it go, or offer it to another writer). */
RtfOffer rtf_writer_offer_backlog (RtfWriter * w, gsize size, guint64 seq,
    const RtfFrameTimes * times, const RtfFrameOrigin * origin,
    RtfFrame ** frame);
/* The recording ends with the last frame committed (last_seq): the writer
 * reports it stopped once that frame is handed back, and finishes its file
 * (a set: the next recording starts the next file). */
void rtf_writer_end_recording (RtfWriter * w, guint64 last_seq);
/* A frame held at `from` (rtf_writer_hold()) goes to `to`, a writer of the
 * same stream (a spread's), which will be offered it: counted there */
void rtf_writer_move_held (RtfWriter * from, RtfWriter * to, gsize size);

/* ---- the producer's side: a ring (config.keep_location) ---------------- */

/* Recording `keep` keeps every frame from from_seq on (of running time
 * from_rt; prerecorded of them held before its start), its files linked
 * into a new directory of config.keep_location; taken when the writer
 * takes the first frame numbered at_seq or later (the next frame the
 * producer offers), or at the end.  Told through recording_started
 * (info->path: its directory, NULL when none could be made) once the
 * directory is made, each file through file_kept. */
void rtf_writer_keep_begin (RtfWriter * w, guint64 keep, guint64 from_seq,
    guint64 from_rt, guint64 prerecorded, guint64 at_seq);
/* ... and ends with frame info->last_seq, holding what the producer
 * counted (last_running_time, frames, bytes, prerecorded): told through
 * recording_stopped after its last file is kept, with frames-lost those
 * min-free-space took before it could keep them */
void rtf_writer_keep_end (RtfWriter * w, const RtfKeepInfo * info,
    guint64 at_seq);
/* No recording will keep a frame before `floor`: the ring's files whose
 * frames all come before it go (file_deleted, reason RTF_DELETE_RING) */
void rtf_writer_ring_floor (RtfWriter * w, guint64 floor);

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
