/* rtframe: the bounded frame queue between the streaming thread and the
 * writer thread.
 *
 * Frames live in a fixed array of slots used as a ring, so handing a frame
 * over allocates nothing.  Three cursors walk the ring in order:
 *   tail   - oldest frame not yet released (its write may be in flight)
 *   submit - oldest frame not yet taken by the writer
 *   head   - next free slot
 * The producer waits on a condition variable when the ring is full; the
 * writer is woken through an eventfd (the doorbell) so it can wait for new
 * frames and for I/O completions in one call (poll or io_uring). */
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
  RtfFrame *slots;
  guint capacity;
  guint64 max_bytes;

  guint tail, submit, head;     /* ring positions, modulo capacity */
  guint count;                  /* slots between tail and head */
  guint queued;                 /* slots between submit and head */
  guint64 bytes;                /* bytes of the counted frames */
  guint64 next_seq;

  gboolean flushing;
  gboolean closed;
  gboolean shutdown;
  guint barrier_req, barrier_ack;
  gint barrier_result;

  gint doorbell;
};

RtfQueue *
rtf_queue_new (guint max_frames, guint64 max_bytes)
{
  RtfQueue *q;
  guint i;

  g_return_val_if_fail (max_frames > 0, NULL);

  q = g_new0 (RtfQueue, 1);
  g_mutex_init (&q->lock);
  g_cond_init (&q->cond);
  q->capacity = max_frames;
  q->max_bytes = max_bytes;
  q->slots = g_new0 (RtfFrame, max_frames);
  for (i = 0; i < max_frames; i++) {
    q->slots[i].index = i;
    q->slots[i].io_slot = -1;
  }
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
  g_free (q->slots);
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
rtf_queue_slot (RtfQueue * q, guint index)
{
  g_return_val_if_fail (index < q->capacity, NULL);
  return &q->slots[index];
}

void
rtf_queue_get_level (RtfQueue * q, guint * frames, guint64 * bytes,
    guint * queued)
{
  g_mutex_lock (&q->lock);
  if (frames)
    *frames = q->count;
  if (bytes)
    *bytes = q->bytes;
  if (queued)
    *queued = q->queued;
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

static gboolean
has_room (RtfQueue * q, gsize size)
{
  if (q->count >= q->capacity)
    return FALSE;
  /* An empty queue takes any frame, so a frame larger than the byte limit
   * still goes through (one at a time) instead of blocking forever. */
  if (q->max_bytes > 0 && q->count > 0 && q->bytes + size > q->max_bytes)
    return FALSE;
  return TRUE;
}

RtfQueueResult
rtf_queue_reserve (RtfQueue * q, gsize size, gboolean may_wait,
    RtfFrame ** frame, gint64 * waited_ns)
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
    if (start == 0)
      start = rtf_clock_now_ns ();
    g_cond_wait (&q->cond, &q->lock);
  }
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

  f = &q->slots[q->head];
  g_assert (f->state == RTF_FRAME_FREE);
  f->state = RTF_FRAME_RESERVED;
  f->size = size;
  f->n_iov = 0;
  f->offset = 0;
  f->submit_ns = f->complete_ns = 0;
  f->pending = 0;
  f->error = 0;
  f->copied = FALSE;
  f->io_slot = -1;
  q->head = (q->head + 1) % q->capacity;
  q->count++;
  q->bytes += size;
  *frame = f;

done:
  g_mutex_unlock (&q->lock);
  return res;
}

void
rtf_queue_commit (RtfQueue * q, RtfFrame * frame)
{
  g_mutex_lock (&q->lock);
  g_assert (frame->state == RTF_FRAME_RESERVED);
  frame->seq = q->next_seq++;
  frame->state = RTF_FRAME_QUEUED;
  q->queued++;
  g_mutex_unlock (&q->lock);
  ring_doorbell (q);
}

/* Gives back the slot reserved last, when the producer could not fill it. */
void
rtf_queue_cancel (RtfQueue * q, RtfFrame * frame)
{
  g_mutex_lock (&q->lock);
  g_assert (frame->state == RTF_FRAME_RESERVED);
  g_assert ((frame->index + 1) % q->capacity == q->head);
  frame->state = RTF_FRAME_FREE;
  q->head = frame->index;
  q->count--;
  q->bytes -= frame->size;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

void
rtf_queue_set_flushing (RtfQueue * q, gboolean flushing)
{
  g_mutex_lock (&q->lock);
  q->flushing = flushing;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

/* Waits until the writer has written every frame committed so far and has
 * run its barrier work (see rtf_queue_barrier_pending()).  Aborted by
 * set_flushing() and close(). */
RtfQueueResult
rtf_queue_barrier (RtfQueue * q, gint * result)
{
  RtfQueueResult res = RTF_QUEUE_OK;
  guint gen;

  g_mutex_lock (&q->lock);
  if (q->closed) {
    res = RTF_QUEUE_CLOSED;
    goto done;
  }
  gen = ++q->barrier_req;
  g_mutex_unlock (&q->lock);
  ring_doorbell (q);
  g_mutex_lock (&q->lock);
  while (q->barrier_ack < gen && !q->flushing && !q->closed)
    g_cond_wait (&q->cond, &q->lock);
  if (q->barrier_ack >= gen) {
    if (result)
      *result = q->barrier_result;
  } else if (q->closed) {
    res = RTF_QUEUE_CLOSED;
  } else {
    res = RTF_QUEUE_FLUSHING;
  }
done:
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

/* The oldest committed frame not yet taken by the writer, or NULL. */
RtfFrame *
rtf_queue_pop (RtfQueue * q)
{
  RtfFrame *f = NULL;

  g_mutex_lock (&q->lock);
  while (q->queued > 0) {
    f = &q->slots[q->submit];
    q->submit = (q->submit + 1) % q->capacity;
    q->queued--;
    if (f->state == RTF_FRAME_QUEUED)
      break;
    f = NULL;                   /* dropped while queued: skip */
  }
  if (f)
    f->state = RTF_FRAME_IN_FLIGHT;
  g_mutex_unlock (&q->lock);
  return f;
}

/* The oldest frame not yet released (taken by the writer or not), or NULL.
 * Frames are released in this order, whatever order their writes complete
 * in, so the writer knows which prefix of the file is whole. */
RtfFrame *
rtf_queue_oldest (RtfQueue * q)
{
  RtfFrame *f = NULL;

  g_mutex_lock (&q->lock);
  if (q->count > 0 && q->slots[q->tail].state != RTF_FRAME_RESERVED)
    f = &q->slots[q->tail];
  g_mutex_unlock (&q->lock);
  return f;
}

void
rtf_queue_release (RtfQueue * q, RtfFrame * frame)
{
  g_mutex_lock (&q->lock);
  g_assert (frame == &q->slots[q->tail]);
  if (frame->state == RTF_FRAME_QUEUED) {
    /* released without being taken (writer shutting down after a failure) */
    g_assert (q->submit == q->tail);
    q->submit = (q->submit + 1) % q->capacity;
    q->queued--;
  }
  frame->state = RTF_FRAME_FREE;
  q->tail = (q->tail + 1) % q->capacity;
  q->count--;
  q->bytes -= frame->size;
  g_cond_broadcast (&q->cond);
  g_mutex_unlock (&q->lock);
}

/* TRUE when the producer waits in rtf_queue_barrier() and every frame it
 * committed before has been released. */
gboolean
rtf_queue_barrier_pending (RtfQueue * q)
{
  gboolean ret;

  g_mutex_lock (&q->lock);
  ret = q->barrier_req > q->barrier_ack && q->count == 0;
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
