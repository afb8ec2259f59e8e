/* rtframe: the bounded frame queue between the streaming thread and the
 * writer thread.
 *
 * The queue owns max_frames RtfFrame structures, handed out from a free
 * list: handing a frame over allocates nothing, and a frame keeps its index
 * (the producer keys its own per-frame data on it) wherever it is.  Queued
 * frames are kept in order in a ring of pointers; the writer takes them
 * from there and keeps the ones it is writing itself, so the oldest queued
 * frame can be dropped (and its memory freed) at once even while a write
 * is stuck.  The producer waits on a condition variable when max_frames or
 * max_bytes frames are held; the writer is woken through an eventfd (the
 * doorbell) so it can wait for new frames and for I/O completions in one
 * call.  While the producer waits, the frame it holds is not in the queue
 * yet but its deadline runs: the writer watches it like a queued one. */
#include "rtf-queue.h"
#include "rtf-clock.h"

#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct _RtfQueue
{
  GMutex lock;
  GCond cond;
  guint capacity;               /* max_frames + the backlog's cells */
  guint max_frames;
  guint64 max_bytes;

  RtfFrame *frames;             /* capacity of them */
  guint *free_list;             /* indices of FREE frames */
  guint n_free;
  RtfFrame **ring;              /* queued frames, oldest at ring_first */
  guint ring_first;
  RtfQueueLevel level;
  guint64 next_seq;
  /* the frame the producer waits to hand over (its own copy, valid while
   * it waits in rtf_queue_reserve()), so its deadline is watched too */
  RtfFrame *waiter;
  /* the owner's look while the producer waits (rtf_queue_set_wait_hook) */
  RtfQueueWaitHook wait_hook;
  gpointer wait_hook_data;
  gint64 wait_slice_us;

  gboolean flushing;
  gboolean closed;
  gboolean shutdown;
  guint barrier_req, barrier_ack;
  gint barrier_result;

  gint doorbell;
};

RtfQueue *
rtf_queue_new (guint max_frames, guint64 max_bytes, guint backlog_frames)
{
  RtfQueue *q;
  guint i, cap;

  g_return_val_if_fail (max_frames > 0, NULL);

  q = g_new0 (RtfQueue, 1);
  g_mutex_init (&q->lock);
  g_cond_init (&q->cond);
  cap = max_frames + backlog_frames;
  q->capacity = cap;
  q->max_frames = max_frames;
  q->max_bytes = max_bytes;
  q->frames = g_new0 (RtfFrame, cap);
  q->free_list = g_new (guint, cap);
  q->ring = g_new0 (RtfFrame *, cap);
  for (i = 0; i < cap; i++) {
    q->frames[i].cell = i;
    q->free_list[i] = cap - 1 - i;      /* frame 0 handed out first */
  }
  q->n_free = cap;
  q->doorbell = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (q->doorbell < 0) {
    rtf_queue_free (q);
    return NULL;
  }
  return q;
}

void
rtf_queue_free (RtfQueue * q)
{
  if (q == NULL)
    return;
  if (q->doorbell >= 0)
    close (q->doorbell);
  g_free (q->frames);
  g_free (q->free_list);
  g_free (q->ring);
  g_cond_clear (&q->cond);
  g_mutex_clear (&q->lock);
  g_free (q);
}

guint
rtf_queue_capacity (RtfQueue * q)
{
  return q->capacity;
}

RtfFrame *
rtf_queue_cell (RtfQueue * q, guint index)
{
  g_return_val_if_fail (index < q->capacity, NULL);
  return &q->frames[index];
}

void
rtf_queue_get_level (RtfQueue * q, RtfQueueLevel * level)
{
  g_mutex_lock (&q->lock);
  *level = q->level;
  g_mutex_unlock (&q->lock);
}

static void
ring_doorbell (RtfQueue * q)
{
  uint64_t one = 1;
  ssize_t ret;

  /* Can only fail with EAGAIN when the counter is saturated: then the
   * writer has a wake-up pending anyway. */
  ret = write (q->doorbell, &one, sizeof (one));
  (void) ret;
}

/* Room for a frame of the live stream: the limits count the frames held
 * but the backlog's */
static gboolean
has_room (RtfQueue * q, gsize size)
{
  guint held = q->level.held - q->level.backlog;
  guint64 bytes = q->level.held_bytes - q->level.backlog_bytes;

  if (q->n_free == 0 || held >= q->max_frames)
    return FALSE;
  /* Nothing held: any frame is taken, so a frame larger than the byte
   * limit still goes through (one at a time) instead of blocking forever. */
  if (q->max_bytes > 0 && held > 0 && bytes + size > q->max_bytes)
    return FALSE;
  return TRUE;
}

/* A free cell, RESERVED for a frame of `size` bytes */
static RtfFrame *
take_cell (RtfQueue * q, gsize size)
{
  RtfFrame *f = &q->frames[q->free_list[--q->n_free]];

  g_assert (f->state == RTF_FRAME_FREE);
  f->state = RTF_FRAME_RESERVED;
  f->size = size;
  f->n_iov = 0;
  rtf_frame_times_clear (&f->times);
  rtf_frame_origin_clear (&f->origin);
  f->reference = NULL;
  f->flags = 0;
  f->split = FALSE;
  f->offset = 0;
  f->submitted = FALSE;
  f->submit_ns = f->complete_ns = 0;
  f->pending = 0;
  f->error = 0;
  f->copied = FALSE;
  f->miss_reported = FALSE;
  f->handed_back = FALSE;
  q->level.held++;
  q->level.held_bytes += size;
  q->level.reserved++;
  q->level.held_max = MAX (q->level.held_max, q->level.held);
  q->level.held_bytes_max = MAX (q->level.held_bytes_max, q->level.held_bytes);
  return f;
}

RtfQueueResult
rtf_queue_reserve (RtfQueue * q, gsize size, gboolean may_wait,
    RtfFrame * waiting, RtfFrame ** frame, gint64 * waited_ns)
{
  RtfQueueResult res = RTF_QUEUE_OK;
  gint64 start = 0;
  RtfFrame *f;

  *frame = NULL;
  if (waited_ns)
    *waited_ns = 0;

  g_mutex_lock (&q->lock);
  while (!q->closed && !q->flushing && !has_room (q, size)) {
    if (!may_wait) {
      res = RTF_QUEUE_FULL;
      goto done;
    }
    if (start == 0) {
      start = rtf_clock_now_ns ();
      if (waiting && waiting->times.deadline_ns != 0) {
        /* the writer may be waiting with no deadline to watch: it has to
         * look again, now that this one runs */
        q->waiter = waiting;
        ring_doorbell (q);
      }
    }
    if (q->wait_hook == NULL) {
      g_cond_wait (&q->cond, &q->lock);
    } else if (!g_cond_wait_until (&q->cond, &q->lock,
            g_get_monotonic_time () + q->wait_slice_us)) {
      g_mutex_unlock (&q->lock);
      q->wait_hook (q->wait_hook_data);
      g_mutex_lock (&q->lock);
    }
  }
  q->waiter = NULL;
  if (start != 0 && waited_ns)
    *waited_ns = rtf_clock_now_ns () - start;

  if (q->closed) {
    res = RTF_QUEUE_CLOSED;
    goto done;
  }
  if (q->flushing) {
    res = RTF_QUEUE_FLUSHING;
    goto done;
  }

  f = take_cell (q, size);
  /* seen while it waited: it takes the number the miss was reported with */
  f->miss_reported = waiting && waiting->miss_reported;
  *frame = f;

done:
  g_mutex_unlock (&q->lock);
  return res;
}

guint64
rtf_queue_commit (RtfQueue * q, RtfFrame * frame)
{
  guint64 seq;

  g_mutex_lock (&q->lock);
  g_assert (frame->state == RTF_FRAME_RESERVED);
  /* a backlog frame has its number, and was received when it took it */
  if (!(frame->flags & RTF_FRAME_PRERECORDED)) {
    frame->seq = q->next_seq++;
    q->level.received++;
  }
  frame->state = RTF_FRAME_QUEUED;
  q->level.reserved--;
  q->ring[(q->ring_first + q->level.queued) % q->capacity] = frame;
  q->level.queued++;
  q->level.queued_bytes += frame->size;
  seq = frame->seq;
  g_mutex_unlock (&q->lock);
  ring_doorbell (q);
  return seq;
}

static void
put_back (RtfQueue * q, RtfFrame * frame)
{
  switch (frame->state) {
    case RTF_FRAME_RESERVED:
      q->level.reserved--;
      break;
    case RTF_FRAME_WRITTEN:
      q->level.written++;
      break;
    case RTF_FRAME_DROPPED:
      q->level.dropped++;
      break;
    default:
      q->level.failed++;
      break;
  }
  q->level.held--;
  q->level.held_bytes -= frame->size;
  if (frame->flags & RTF_FRAME_PRERECORDED) {
    q->level.backlog--;
    q->level.backlog_bytes -= frame->size;
  }
  frame->state = RTF_FRAME_FREE;
  q->free_list[q->n_free++] = frame->cell;
  g_cond_broadcast (&q->cond);
}

guint64
rtf_queue_number_outside (RtfQueue * q, gsize size)
{
  guint64 seq;

  g_mutex_lock (&q->lock);
  seq = q->next_seq++;
  q->level.received++;
  q->level.outside++;
  q->level.outside_bytes += size;
  g_mutex_unlock (&q->lock);
  return seq;
}

void
rtf_queue_discard_outside (RtfQueue * q, gsize size)
{
  g_mutex_lock (&q->lock);
  g_assert (q->level.outside > 0);
  q->level.outside--;
  q->level.outside_bytes -= size;
  q->level.discarded++;
  g_mutex_unlock (&q->lock);
}

void
rtf_queue_move_outside (RtfQueue * from, RtfQueue * to, gsize size)
{
  /* (one lock at a time: the two counts are each queue's own) */
  g_mutex_lock (&from->lock);
  g_assert (from->level.outside > 0);
  from->level.outside--;
  from->level.outside_bytes -= size;
  from->level.received--;
  g_mutex_unlock (&from->lock);
  g_mutex_lock (&to->lock);
  to->level.outside++;
  to->level.outside_bytes += size;
  to->level.received++;
  g_mutex_unlock (&to->lock);
}

void
rtf_queue_number_next (RtfQueue * q, guint64 seq)
{
  g_mutex_lock (&q->lock);
  q->next_seq = seq;
  g_mutex_unlock (&q->lock);
}

RtfQueueResult
rtf_queue_reserve_backlog (RtfQueue * q, gsize size, guint64 seq,
    RtfFrame ** frame)
{
  RtfQueueResult res = RTF_QUEUE_OK;
  RtfFrame *f;

  *frame = NULL;
  g_mutex_lock (&q->lock);
  if (q->closed) {
    res = RTF_QUEUE_CLOSED;
  } else if (q->n_free == 0) {
    res = RTF_QUEUE_FULL;
  } else {
    g_assert (q->level.outside > 0);
    f = take_cell (q, size);
    f->seq = seq;
    f->flags = RTF_FRAME_PRERECORDED;
    q->level.outside--;
    q->level.outside_bytes -= size;
    q->level.backlog++;
    q->level.backlog_bytes += size;
    *frame = f;
  }
  g_mutex_unlock (&q->lock);
  return res;
}

/* Gives back a reserved frame the producer could not fill. */
void
rtf_queue_cancel (RtfQueue * q, RtfFrame * frame)
{
  g_mutex_lock (&q->lock);
  g_assert (frame->state == RTF_FRAME_RESERVED);
  /* a backlog frame was received when it took its number: it goes
   * unwritten */
  if (frame->flags & RTF_FRAME_PRERECORDED)
    q->level.discarded++;
  put_back (q, frame);
  g_mutex_unlock (&q->lock);
}

/* The oldest queued frame, taken out of the queue in `state`, or NULL;
 * with only_backlog only a backlog frame, without only a live one.
 * Under the lock. */
static RtfFrame *
take_oldest_locked (RtfQueue * q, RtfFrameState state, gint only_backlog)
{
  RtfFrame *f = NULL;

  if (q->level.queued > 0 && (only_backlog < 0
          || !(q->ring[q->ring_first]->flags & RTF_FRAME_PRERECORDED)
          == !only_backlog)) {
    f = q->ring[q->ring_first];
    q->ring_first = (q->ring_first + 1) % q->capacity;
    q->level.queued--;
    q->level.queued_bytes -= f->size;
    f->state = state;
  }
  return f;
}

static RtfFrame *
take_oldest (RtfQueue * q, RtfFrameState state, gint only_backlog)
{
  RtfFrame *f;

  g_mutex_lock (&q->lock);
  f = take_oldest_locked (q, state, only_backlog);
  g_mutex_unlock (&q->lock);
  return f;
}

/* The oldest queued frame leaky=downstream may drop: a live one that
 * begins no recording and was taken here first.  A frame that begins one
 * (or its part at a location) stays: without it the writer would never
 * open that recording - no file of its own, no recording-started, and
 * with locations no recording-stopped for it or any after it.  So does
 * one failed over from another location (accepted there; held for
 * pre-record, too).  Its place in the ring from the oldest, or -1 (lock
 * held) */
static gint
droppable_locked (RtfQueue * q)
{
  guint i;

  for (i = 0; i < q->level.queued; i++) {
    const RtfFrame *f = q->ring[(q->ring_first + i) % q->capacity];

    if (f->flags & RTF_FRAME_PRERECORDED)
      return -1;
    if (!rtf_frame_opens_recording (f->flags)
        && !(f->flags & (RTF_FRAME_FAILED_OVER | RTF_FRAME_HELD)))
      return (gint) i;
  }
  return -1;
}

/* Takes the oldest queued frame leaky=downstream may drop out of the
 * queue, DROPPED (the frames before it keep their order), or NULL when
 * there is none: nothing is queued (every held frame is being written),
 * or only backlog frames (never dropped: the producer bounds the backlog)
 * and frames that begin a recording come before any other.  The caller
 * releases it with rtf_queue_release().  An upstream gap before it goes
 * to the frame queued after it, under the lock the writer takes that
 * frame with (its index record says it); with none queued after it, the
 * dropped frame keeps it for the caller to pass on. */
RtfFrame *
rtf_queue_drop_oldest (RtfQueue * q)
{
  RtfFrame *f = NULL;
  gint at, j;

  g_mutex_lock (&q->lock);
  if ((at = droppable_locked (q)) < 0)
    goto done;
  f = q->ring[(q->ring_first + at) % q->capacity];
  /* the frames before it move up one place */
  for (j = at; j > 0; j--)
    q->ring[(q->ring_first + j) % q->capacity] =
        q->ring[(q->ring_first + j - 1) % q->capacity];
  q->ring_first = (q->ring_first + 1) % q->capacity;
  q->level.queued--;
  q->level.queued_bytes -= f->size;
  f->state = RTF_FRAME_DROPPED;
  if (f->origin.gap.how != 0 && (guint) at < q->level.queued) {
    RtfFrame *next = q->ring[(q->ring_first + at) % q->capacity];
    RtfUpstreamGap gap = f->origin.gap;

    rtf_upstream_gap_merge (&gap, &next->origin.gap);
    next->origin.gap = gap;
    rtf_upstream_gap_clear (&f->origin.gap);
  }
done:
  g_mutex_unlock (&q->lock);
  return f;
}

/* The producer dropped a frame instead of handing it over: it counts as
 * received and dropped, and takes a frame number (returned). */
guint64
rtf_queue_count_dropped_incoming (RtfQueue * q, RtfQueueLevel * level)
{
  guint64 seq;

  g_mutex_lock (&q->lock);
  seq = q->next_seq++;
  q->level.received++;
  q->level.dropped++;
  if (level)
    *level = q->level;
  g_mutex_unlock (&q->lock);
  return seq;
}

void
rtf_queue_set_flushing (RtfQueue * q, gboolean flushing)
{
  g_mutex_lock (&q->lock);
  q->flushing = flushing;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

/* Waits until the writer has released every frame committed so far and has
 * run its barrier work (see rtf_queue_barrier_pending()).  Aborted by
 * set_flushing() and close(). */
RtfQueueResult
rtf_queue_barrier (RtfQueue * q, gint * result)
{
  return rtf_queue_barrier_until (q, result, -1);
}

RtfQueueResult
rtf_queue_barrier_until (RtfQueue * q, gint * result, gint64 end_us)
{
  RtfQueueResult res = RTF_QUEUE_OK;
  guint gen;

  g_mutex_lock (&q->lock);
  if (q->closed) {
    res = RTF_QUEUE_CLOSED;
    goto done;
  }
  /* one asked before and not answered yet (a wait that timed out) is
   * the one to wait for */
  gen = q->barrier_req > q->barrier_ack ? q->barrier_req : ++q->barrier_req;
  g_mutex_unlock (&q->lock);
  ring_doorbell (q);
  g_mutex_lock (&q->lock);
  while (q->barrier_ack < gen && !q->flushing && !q->closed) {
    if (end_us < 0)
      g_cond_wait (&q->cond, &q->lock);
    else if (!g_cond_wait_until (&q->cond, &q->lock, end_us))
      break;
  }
  if (q->barrier_ack >= gen) {
    if (result)
      *result = q->barrier_result;
  } else if (q->closed) {
    res = RTF_QUEUE_CLOSED;
  } else if (q->flushing) {
    /* withdrawn: the writer must not end the file later, mid-stream,
     * when it is next idle */
    q->barrier_req = q->barrier_ack;
    res = RTF_QUEUE_FLUSHING;
  } else {
    res = RTF_QUEUE_TIMEOUT;
  }
done:
  g_mutex_unlock (&q->lock);
  return res;
}

void
rtf_queue_set_wait_hook (RtfQueue * q, gint64 slice_us, RtfQueueWaitHook hook,
    gpointer data)
{
  g_mutex_lock (&q->lock);
  q->wait_hook = hook;
  q->wait_hook_data = data;
  q->wait_slice_us = MAX (slice_us, 1000);
  g_mutex_unlock (&q->lock);
}

RtfQueueResult
rtf_queue_wait_released_until (RtfQueue * q, gint64 end_us)
{
  RtfQueueResult res = RTF_QUEUE_OK;

  g_mutex_lock (&q->lock);
  while (q->level.held > 0 && !q->flushing) {
    if (end_us < 0)
      g_cond_wait (&q->cond, &q->lock);
    else if (!g_cond_wait_until (&q->cond, &q->lock, end_us))
      break;
  }
  if (q->level.held > 0)
    res = q->flushing ? RTF_QUEUE_FLUSHING : RTF_QUEUE_TIMEOUT;
  g_mutex_unlock (&q->lock);
  return res;
}

void
rtf_queue_shutdown (RtfQueue * q)
{
  g_mutex_lock (&q->lock);
  q->shutdown = TRUE;
  g_mutex_unlock (&q->lock);
  ring_doorbell (q);
}

void
rtf_queue_wake_consumer (RtfQueue * q)
{
  ring_doorbell (q);
}

gint
rtf_queue_doorbell_fd (RtfQueue * q)
{
  return q->doorbell;
}

void
rtf_queue_ack_doorbell (RtfQueue * q)
{
  uint64_t v;
  ssize_t ret;

  ret = read (q->doorbell, &v, sizeof (v));
  (void) ret;
}

/* The oldest queued frame, now IN_FLIGHT and the writer's, or NULL. */
RtfFrame *
rtf_queue_pop (RtfQueue * q)
{
  return take_oldest (q, RTF_FRAME_IN_FLIGHT, -1);
}

RtfFrame *
rtf_queue_pop_backlog (RtfQueue * q)
{
  return take_oldest (q, RTF_FRAME_IN_FLIGHT, TRUE);
}

/* Marks the queued frames whose deadline is at or before `now` as reported
 * and describes them (up to max) in out, then the frame the producer waits
 * to hand over (WAITING: it gets the next frame number, which is the one
 * rtf_queue_commit() or rtf_queue_count_dropped_incoming() gives it).
 * *next_deadline is set to the earliest deadline of those not yet due
 * (G_MAXINT64: none).  Under the lock, so a frame cannot be dropped, nor
 * the waiting one handed over, meanwhile. */
guint
rtf_queue_collect_missed (RtfQueue * q, gint64 now, RtfFrameReport * out,
    guint max, gint64 * next_deadline)
{
  guint i, n = 0;

  *next_deadline = G_MAXINT64;
  g_mutex_lock (&q->lock);
  for (i = 0; i < q->level.queued; i++) {
    RtfFrame *f = q->ring[(q->ring_first + i) % q->capacity];

    if (f->times.deadline_ns == 0 || f->miss_reported)
      continue;
    if (f->times.deadline_ns > now) {
      *next_deadline = MIN (*next_deadline, f->times.deadline_ns);
      continue;
    }
    if (n == max) {
      *next_deadline = now;     /* more to collect: come back at once */
      break;
    }
    f->miss_reported = TRUE;
    rtf_frame_report_init (&out[n], f, now, RTF_FRAME_QUEUED, q->level.queued,
        q->level.queued_bytes, q->level.held);
    n++;
  }
  if (q->waiter && !q->waiter->miss_reported) {
    RtfFrame *f = q->waiter;

    if (f->times.deadline_ns > now) {
      *next_deadline = MIN (*next_deadline, f->times.deadline_ns);
    } else if (n == max) {
      *next_deadline = now;
    } else {
      f->miss_reported = TRUE;
      f->seq = q->next_seq;
      rtf_frame_report_init (&out[n], f, now, RTF_FRAME_WAITING,
          q->level.queued, q->level.queued_bytes, q->level.held);
      n++;
    }
  }
  g_mutex_unlock (&q->lock);
  return n;
}

void
rtf_queue_release (RtfQueue * q, RtfFrame * frame)
{
  g_mutex_lock (&q->lock);
  g_assert (frame->state != RTF_FRAME_FREE && frame->state != RTF_FRAME_QUEUED);
  put_back (q, frame);
  g_mutex_unlock (&q->lock);
}

/* TRUE when the producer waits in rtf_queue_barrier() and every frame it
 * handed over before has been released. */
gboolean
rtf_queue_barrier_pending (RtfQueue * q)
{
  gboolean ret;

  g_mutex_lock (&q->lock);
  ret = q->barrier_req > q->barrier_ack && q->level.held == 0;
  g_mutex_unlock (&q->lock);
  return ret;
}

void
rtf_queue_barrier_done (RtfQueue * q, gint result)
{
  g_mutex_lock (&q->lock);
  q->barrier_ack = q->barrier_req;
  q->barrier_result = result;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

gboolean
rtf_queue_is_shutdown (RtfQueue * q)
{
  gboolean ret;

  g_mutex_lock (&q->lock);
  ret = q->shutdown;
  g_mutex_unlock (&q->lock);
  return ret;
}

/* The writer failed: wake and refuse the producer from now on. */
void
rtf_queue_close (RtfQueue * q)
{
  g_mutex_lock (&q->lock);
  q->closed = TRUE;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}
