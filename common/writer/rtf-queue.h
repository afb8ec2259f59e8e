/* rtframe: the bounded frame queue between the streaming thread and the
 * writer thread */
#ifndef __RTF_QUEUE_H__
#define __RTF_QUEUE_H__

#include "rtf-frame.h"

G_BEGIN_DECLS typedef struct _RtfQueue RtfQueue;

typedef enum
{
  RTF_QUEUE_OK,
  RTF_QUEUE_FULL,               /* no room and the caller may not wait */
  RTF_QUEUE_FLUSHING,           /* a wait was aborted by set_flushing() */
  RTF_QUEUE_CLOSED,             /* the writer failed: nothing more is taken */
  RTF_QUEUE_TIMEOUT             /* a timed wait ended first */
} RtfQueueResult;

typedef struct
{
  guint held;                   /* frames reserved and not released */
  guint64 held_bytes;
  guint reserved;               /* of those, being filled (not received) */
  guint queued;                 /* of those, not yet taken by the writer */
  guint64 queued_bytes;
  /* frames over the queue's life: received = committed or dropped on the
   * way in; released as written, failed or dropped */
  guint64 received;
  guint64 written;
  guint64 failed;
  guint64 dropped;
  /* frames the producer numbered and kept outside the queue (frames held
   * for pre-record), and those of them it let go without writing */
  guint outside;
  guint64 outside_bytes;
  guint64 discarded;
  /* of held: backlog frames (pre-recorded, handed over at a start), which
   * the limits do not count: the producer bounds them itself */
  guint backlog;
  guint64 backlog_bytes;
  guint held_max;               /* high-water marks of held */
  guint64 held_bytes_max;
} RtfQueueLevel;

/* A frame is held from rtf_queue_reserve() until rtf_queue_release():
 *   FREE -> RESERVED -> QUEUED -> (taken by the writer) IN_FLIGHT ->
 *   WRITTEN | FAILED -> FREE,  or QUEUED -> DROPPED -> FREE.
 * The limits count held frames, so they bound the memory of frames queued
 * *and* being written.  Only queued frames are in the queue's order; once
 * taken, the writer keeps them.  One producer thread, one writer thread.
 * backlog_frames more cells are kept for backlog frames
 * (rtf_queue_reserve_backlog()), outside the limits.
 * Accounting, at every snapshot: received = written + failed + dropped +
 * discarded + outside + held - reserved. */
RtfQueue *rtf_queue_new (guint max_frames, guint64 max_bytes,
    guint backlog_frames);
void rtf_queue_free (RtfQueue * q);

guint rtf_queue_capacity (RtfQueue * q);
RtfFrame *rtf_queue_cell (RtfQueue * q, guint index);
void rtf_queue_get_level (RtfQueue * q, RtfQueueLevel * level);

/* Producer side */
/* waiting (may be NULL): the producer's description of the frame it wants
 * to hand over (times, deadline).  While reserve waits for room the writer
 * watches its deadline (rtf_queue_collect_missed()) and, once it passed,
 * sets waiting->miss_reported and ->seq; the frame reserved then carries
 * miss_reported.  If reserve then fails, the producer must still account
 * for that number (rtf_queue_count_dropped_incoming()). */
RtfQueueResult rtf_queue_reserve (RtfQueue * q, gsize size, gboolean may_wait,
    RtfFrame * waiting, RtfFrame ** frame, gint64 * waited_ns);
/* (returns the frame's number: once committed, the frame is the
 * consumer's, and not to be read by the producer) */
guint64 rtf_queue_commit (RtfQueue * q, RtfFrame * frame);
/* The producer keeps a frame of `size` bytes outside the queue for now
 * (pre-record): it takes its number (returned) and counts as received. */
guint64 rtf_queue_number_outside (RtfQueue * q, gsize size);
/* ... and lets it go unwritten: counted discarded */
void rtf_queue_discard_outside (RtfQueue * q, gsize size);
/* ... or counts it at another queue of the same stream (a spread's
 * location that will write it): received and held there, not here */
void rtf_queue_move_outside (RtfQueue * from, RtfQueue * to, gsize size);
/* ... or hands it over as a backlog frame, with the number it took: a
 * free cell of the backlog's, never a wait (RTF_QUEUE_FULL when none is
 * free, which the producer's own bound rules out).  Then
 * rtf_queue_commit(). */
/* The next number handed out (commit, a frame dropped as it comes, held
 * outside) is seq: the producer numbers frames itself.  Its thread only. */
void rtf_queue_number_next (RtfQueue * q, guint64 seq);
RtfQueueResult rtf_queue_reserve_backlog (RtfQueue * q, gsize size,
    guint64 seq, RtfFrame ** frame);
void rtf_queue_cancel (RtfQueue * q, RtfFrame * frame);
RtfFrame *rtf_queue_drop_oldest (RtfQueue * q);
guint64 rtf_queue_count_dropped_incoming (RtfQueue * q, RtfQueueLevel * level);
void rtf_queue_set_flushing (RtfQueue * q, gboolean flushing);
RtfQueueResult rtf_queue_barrier (RtfQueue * q, gint * result);
/* The same, waiting until end_us (g_get_monotonic_time()) at most: then
 * RTF_QUEUE_TIMEOUT, the barrier still asked (a later call waits for
 * the same).  A flush withdraws it (RTF_QUEUE_FLUSHING). */
RtfQueueResult rtf_queue_barrier_until (RtfQueue * q, gint * result,
    gint64 end_us);
void rtf_queue_shutdown (RtfQueue * q);
/* Waits until every frame handed over has been released (written, or
 * lost and handed back), until end_us (g_get_monotonic_time(); < 0: no
 * limit): OK, TIMEOUT, or FLUSHING when a flush ends the wait.  For a
 * writer that failed: what it still holds goes back in its own time. */
RtfQueueResult rtf_queue_wait_released_until (RtfQueue * q, gint64 end_us);

/* Called on the producer's thread every slice_us while it waits for
 * room (the queue's lock not held): an owner that can end the wait (a
 * spread retiring a location that stalled closes its queue) looks then.
 * NULL: none (the wait is not cut into slices). */
typedef void (*RtfQueueWaitHook) (gpointer data);
void rtf_queue_set_wait_hook (RtfQueue * q, gint64 slice_us,
    RtfQueueWaitHook hook, gpointer data);

/* Writer side */
gint rtf_queue_doorbell_fd (RtfQueue * q);
/* Rings the doorbell for something else than a frame (any thread). */
void rtf_queue_wake_consumer (RtfQueue * q);
void rtf_queue_ack_doorbell (RtfQueue * q);
RtfFrame *rtf_queue_pop (RtfQueue * q);
/* The oldest queued frame if it is a backlog frame, or NULL */
RtfFrame *rtf_queue_pop_backlog (RtfQueue * q);
guint rtf_queue_collect_missed (RtfQueue * q, gint64 now, RtfFrameReport * out,
    guint max, gint64 * next_deadline);
void rtf_queue_release (RtfQueue * q, RtfFrame * frame);
gboolean rtf_queue_barrier_pending (RtfQueue * q);
void rtf_queue_barrier_done (RtfQueue * q, gint result);
gboolean rtf_queue_is_shutdown (RtfQueue * q);
void rtf_queue_close (RtfQueue * q);

G_END_DECLS
#endif /* __RTF_QUEUE_H__ */
