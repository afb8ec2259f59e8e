/* Unit tests of common/writer/rtf-queue.c: the bounded frame queue */
#include "rtf-queue.h"

#include <poll.h>

static gboolean
doorbell_rung (RtfQueue * q)
{
  struct pollfd p = { rtf_queue_doorbell_fd (q), POLLIN, 0 };

  return poll (&p, 1, 0) == 1;
}

static RtfFrame *
push (RtfQueue * q, gsize size)
{
  RtfFrame *f = NULL;

  g_assert_cmpint (rtf_queue_reserve (q, size, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_OK);
  rtf_queue_commit (q, f);
  return f;
}

static void
finish (RtfQueue * q, RtfFrame * f)
{
  f->state = RTF_FRAME_WRITTEN;
  rtf_queue_release (q, f);
}

static RtfQueueLevel
level (RtfQueue * q)
{
  RtfQueueLevel l;

  rtf_queue_get_level (q, &l);
  /* the accounting holds at every snapshot */
  g_assert_cmpuint (l.received, ==, l.written + l.failed + l.dropped +
      l.discarded + l.outside + l.held - l.reserved);
  return l;
}

static void
test_order_and_levels (void)
{
  RtfQueue *q = rtf_queue_new (4, 0, 0);
  RtfFrame *a, *b, *f;
  RtfQueueLevel l;

  g_assert (!doorbell_rung (q));
  a = push (q, 100);
  b = push (q, 200);
  g_assert (doorbell_rung (q));
  rtf_queue_ack_doorbell (q);
  g_assert (!doorbell_rung (q));
  g_assert_cmpuint (a->seq, ==, 0);
  g_assert_cmpuint (b->seq, ==, 1);

  l = level (q);
  g_assert_cmpuint (l.held, ==, 2);
  g_assert_cmpuint (l.held_bytes, ==, 300);
  g_assert_cmpuint (l.queued, ==, 2);
  g_assert_cmpuint (l.received, ==, 2);

  f = rtf_queue_pop (q);
  g_assert (f == a);
  g_assert_cmpint (f->state, ==, RTF_FRAME_IN_FLIGHT);
  l = level (q);
  g_assert_cmpuint (l.held, ==, 2);     /* being written still counts */
  g_assert_cmpuint (l.queued, ==, 1);
  g_assert_cmpuint (l.queued_bytes, ==, 200);
  g_assert (rtf_queue_pop (q) == b);
  g_assert (rtf_queue_pop (q) == NULL);

  /* released in any order */
  finish (q, b);
  a->state = RTF_FRAME_FAILED;
  rtf_queue_release (q, a);
  l = level (q);
  g_assert_cmpuint (l.held, ==, 0);
  g_assert_cmpuint (l.held_bytes, ==, 0);
  g_assert_cmpuint (l.written, ==, 1);
  g_assert_cmpuint (l.failed, ==, 1);
  rtf_queue_free (q);
}

static void
test_limits (void)
{
  RtfQueue *q = rtf_queue_new (3, 1000, 0);
  RtfFrame *f, *big;

  /* an empty queue takes a frame larger than the byte limit */
  big = push (q, 5000);
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_FULL);
  g_assert (f == NULL);
  g_assert (rtf_queue_pop (q) == big);
  finish (q, big);

  push (q, 400);
  push (q, 400);
  g_assert_cmpint (rtf_queue_reserve (q, 400, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_FULL);
  push (q, 200);
  /* frame limit */
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_FULL);
  rtf_queue_free (q);
}

/* Dropping the oldest queued frame frees room at once, even when the
 * frames before it are stuck being written. */
static void
test_drop_oldest (void)
{
  RtfQueue *q = rtf_queue_new (3, 0, 0);
  RtfFrame *stuck, *a, *b, *f;
  RtfQueueLevel l;

  stuck = push (q, 10);
  g_assert (rtf_queue_pop (q) == stuck);
  a = push (q, 10);
  b = push (q, 10);
  g_assert_cmpint (rtf_queue_reserve (q, 10, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_FULL);
  g_assert (rtf_queue_drop_oldest (q) == a);
  g_assert_cmpint (a->state, ==, RTF_FRAME_DROPPED);
  rtf_queue_release (q, a);
  f = push (q, 10);
  g_assert_cmpuint (f->seq, ==, 3);
  l = level (q);
  g_assert_cmpuint (l.dropped, ==, 1);
  g_assert_cmpuint (l.queued, ==, 2);
  g_assert (rtf_queue_pop (q) == b);
  g_assert (rtf_queue_pop (q) == f);
  g_assert (rtf_queue_drop_oldest (q) == NULL); /* nothing queued */

  g_assert_cmpuint (rtf_queue_count_dropped_incoming (q, NULL), ==, 4);
  l = level (q);
  g_assert_cmpuint (l.received, ==, 5);
  g_assert_cmpuint (l.dropped, ==, 2);
  rtf_queue_free (q);
}

/* leaky=downstream never drops a frame that begins a recording (or its
 * part at a location): the writer opens the recording with it.  The
 * oldest frame after it goes, the frames before keep their order; with
 * only such frames queued, nothing (the frame offered is dropped) */
static void
test_drop_keeps_recording_starts (void)
{
  RtfQueue *q = rtf_queue_new (4, 0, 0);
  RtfFrame *start, *part, *a, *b;

  start = push (q, 10);
  start->flags |= RTF_FRAME_EVENT_START;
  part = push (q, 10);
  part->flags |= RTF_FRAME_PART_START;
  a = push (q, 10);
  a->origin.gap.how = 1;
  a->origin.gap.missing = 2;
  b = push (q, 10);
  g_assert (rtf_queue_drop_oldest (q) == a);
  rtf_queue_release (q, a);
  /* its upstream gap goes to the frame after it */
  g_assert_cmpuint (b->origin.gap.missing, ==, 2);
  g_assert (rtf_queue_pop (q) == start);
  g_assert (rtf_queue_pop (q) == part);
  g_assert (rtf_queue_pop (q) == b);
  finish (q, start);
  finish (q, part);
  finish (q, b);
  start = push (q, 10);
  start->flags |= RTF_FRAME_EVENT_START;
  g_assert (rtf_queue_drop_oldest (q) == NULL);
  /* nor one failed over from another location: it was accepted there */
  start->flags = RTF_FRAME_FAILED_OVER;
  g_assert (rtf_queue_drop_oldest (q) == NULL);
  g_assert (rtf_queue_pop (q) == start);
  finish (q, start);
  rtf_queue_free (q);
}

static void
test_collect_missed (void)
{
  RtfQueue *q = rtf_queue_new (8, 0, 0);
  RtfFrameReport m[8];
  gint64 next;
  guint i;

  for (i = 0; i < 5; i++) {
    RtfFrame *f;

    g_assert_cmpint (rtf_queue_reserve (q, 10, FALSE, NULL, &f, NULL), ==,
        RTF_QUEUE_OK);
    f->times.arrival_ns = 1000 * i;
    f->times.deadline_ns = i == 2 ? 0 : 1000 * i + 500; /* frame 2: no deadline */
    f->times.pts = i;
    rtf_queue_commit (q, f);
  }
  g_assert_cmpuint (rtf_queue_collect_missed (q, 400, m, 8, &next), ==, 0);
  g_assert_cmpint (next, ==, 500);
  g_assert_cmpuint (rtf_queue_collect_missed (q, 1500, m, 8, &next), ==, 2);
  g_assert_cmpuint (m[0].seq, ==, 0);
  g_assert_cmpuint (m[1].seq, ==, 1);
  g_assert_cmpuint (m[1].times.pts, ==, 1);
  g_assert_cmpint (m[1].times.deadline_ns, ==, 1500);
  g_assert_cmpint (m[1].detected_ns, ==, 1500);
  g_assert_cmpint (m[1].where, ==, RTF_FRAME_QUEUED);
  g_assert_cmpuint (m[1].queued_frames, ==, 5);
  g_assert_cmpuint (level (q).held_max, ==, 5);
  g_assert_cmpint (next, ==, 3500);
  /* once each */
  g_assert_cmpuint (rtf_queue_collect_missed (q, 1500, m, 8, &next), ==, 0);
  g_assert_cmpuint (rtf_queue_collect_missed (q, 9999, m, 1, &next), ==, 1);
  g_assert_cmpuint (m[0].seq, ==, 3);
  g_assert_cmpint (next, ==, 9999);     /* one more is due: come back */
  g_assert_cmpuint (rtf_queue_collect_missed (q, 9999, m, 8, &next), ==, 1);
  g_assert_cmpuint (m[0].seq, ==, 4);
  g_assert_cmpint (next, ==, G_MAXINT64);
  rtf_queue_free (q);
}

/* Frames held outside (pre-record) take their numbers when they come;
 * handed over as a backlog they keep them, outside the limits, and are
 * never dropped by leaky=downstream; the live frames after them are
 * numbered on. */
static void
test_backlog (void)
{
  RtfQueue *q = rtf_queue_new (2, 100, 3);
  RtfFrame *b0, *b1, *f, *live;
  guint64 s0, s1, s2;
  RtfQueueLevel l;

  g_assert_cmpuint (rtf_queue_capacity (q), ==, 5);
  s0 = rtf_queue_number_outside (q, 60);
  s1 = rtf_queue_number_outside (q, 60);
  s2 = rtf_queue_number_outside (q, 60);
  g_assert_cmpuint (s2, ==, 2);
  l = level (q);
  g_assert_cmpuint (l.outside, ==, 3);
  g_assert_cmpuint (l.outside_bytes, ==, 180);
  g_assert_cmpuint (l.received, ==, 3);
  g_assert_cmpuint (s0, ==, 0);
  rtf_queue_discard_outside (q, 60);    /* s0 pushed out */
  g_assert_cmpuint (level (q).discarded, ==, 1);

  g_assert_cmpint (rtf_queue_reserve_backlog (q, 60, s1, &b0), ==,
      RTF_QUEUE_OK);
  rtf_queue_commit (q, b0);
  g_assert_cmpint (rtf_queue_reserve_backlog (q, 60, s2, &b1), ==,
      RTF_QUEUE_OK);
  rtf_queue_commit (q, b1);
  g_assert_cmpuint (b0->seq, ==, 1);
  g_assert_cmpuint (b1->seq, ==, 2);
  g_assert (b1->flags & RTF_FRAME_PRERECORDED);
  l = level (q);
  g_assert_cmpuint (l.backlog, ==, 2);
  g_assert_cmpuint (l.backlog_bytes, ==, 120);
  g_assert_cmpuint (l.received, ==, 3);
  g_assert_cmpuint (l.outside, ==, 0);

  /* the backlog's 120 bytes do not count against the limit of 100 */
  live = push (q, 60);
  g_assert_cmpuint (live->seq, ==, 3);
  g_assert_cmpint (rtf_queue_reserve (q, 60, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_FULL);
  /* the oldest queued is a backlog frame: nothing to drop */
  g_assert (rtf_queue_drop_oldest (q) == NULL);
  /* the writer takes backlog frames ahead of a turn, not live ones */
  g_assert (rtf_queue_pop_backlog (q) == b0);
  g_assert (rtf_queue_pop_backlog (q) == b1);
  g_assert (rtf_queue_pop_backlog (q) == NULL);
  g_assert (rtf_queue_pop (q) == live);
  finish (q, b0);
  finish (q, b1);
  finish (q, live);
  l = level (q);
  g_assert_cmpuint (l.backlog, ==, 0);
  g_assert_cmpuint (l.held, ==, 0);
  g_assert_cmpuint (l.written, ==, 3);
  rtf_queue_free (q);
}

static void
test_cancel (void)
{
  RtfQueue *q = rtf_queue_new (2, 0, 0);
  RtfFrame *f, *g;

  g_assert_cmpint (rtf_queue_reserve (q, 10, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_OK);
  g_assert_cmpuint (level (q).reserved, ==, 1);
  rtf_queue_cancel (q, f);
  g_assert_cmpuint (level (q).held, ==, 0);
  g_assert_cmpuint (level (q).received, ==, 0);
  g = push (q, 10);
  g_assert (g == f);            /* the same frame again */
  g_assert_cmpuint (g->seq, ==, 0);
  rtf_queue_free (q);
}

typedef struct
{
  RtfQueue *q;
  gint result;                  /* RtfQueueResult, -1 while waiting */
  gint64 waited;
  RtfFrame *waiting;            /* what it hands over, or NULL */
  gint started;                 /* set just before it reserves */
} ProducerData;

static gpointer
blocked_producer (gpointer user_data)
{
  ProducerData *d = user_data;
  RtfFrame *f = NULL;

  g_atomic_int_set (&d->started, 1);
  d->result = rtf_queue_reserve (d->q, 1, TRUE, d->waiting, &f, &d->waited);
  if (d->result == RTF_QUEUE_OK)
    rtf_queue_commit (d->q, f);
  return NULL;
}

static void
test_wait_released_by_space (void)
{
  RtfQueue *q = rtf_queue_new (1, 0, 0);
  ProducerData d = { q, -1, 0 };
  RtfFrame *f = push (q, 1);
  GThread *t;

  t = g_thread_new ("producer", blocked_producer, &d);
  /* 50 ms from the producer's start, not the thread's creation: in a
   * loaded QEMU guest the thread began 16 ms late and waited 33.9 ms */
  while (!g_atomic_int_get (&d.started))
    g_usleep (1000);
  g_usleep (50000);
  g_assert_cmpint (d.result, ==, -1);   /* still waiting */
  g_assert (rtf_queue_pop (q) == f);
  finish (q, f);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_OK);
  g_assert_cmpint (d.waited, >=, 40000000);     /* the wait is measured */
  rtf_queue_free (q);
}

/* The frame a producer waits to hand over has a deadline too: its wait
 * rings the doorbell so the writer looks again; once the deadline passed
 * the writer sees it (WAITING, with the number it is about to get), once;
 * the frame then handed over is marked reported, under that number. */
static void
test_waiting_frame_deadline (void)
{
  RtfQueue *q = rtf_queue_new (1, 0, 0);
  RtfFrame stamp = { 0 };
  ProducerData d = { q, -1, 0, &stamp };
  struct pollfd p = { rtf_queue_doorbell_fd (q), POLLIN, 0 };
  RtfFrame *f = push (q, 1), *g;
  RtfFrameReport m[4];
  gint64 next;
  GThread *t;

  rtf_queue_ack_doorbell (q);   /* the push's */
  stamp.times.arrival_ns = 1000000000;
  stamp.times.deadline_ns = stamp.times.arrival_ns + 50000000;
  stamp.size = 1;
  t = g_thread_new ("producer", blocked_producer, &d);
  g_assert_cmpint (poll (&p, 1, 5000), ==, 1);  /* it waits */
  g_assert_cmpint (d.result, ==, -1);

  /* not due: its deadline is the next one to wake up for */
  g_assert_cmpuint (rtf_queue_collect_missed (q, stamp.times.deadline_ns - 1, m,
          4, &next), ==, 0);
  g_assert_cmpint (next, ==, stamp.times.deadline_ns);
  g_assert_cmpuint (rtf_queue_collect_missed (q, stamp.times.deadline_ns + 7, m,
          4, &next), ==, 1);
  g_assert_cmpint (m[0].where, ==, RTF_FRAME_WAITING);
  g_assert_cmpuint (m[0].seq, ==, 1);
  g_assert_cmpint (m[0].times.arrival_ns, ==, stamp.times.arrival_ns);
  g_assert_cmpint (m[0].detected_ns - m[0].times.deadline_ns, ==, 7);
  g_assert_cmpuint (m[0].held_frames, ==, 1);
  g_assert_cmpint (next, ==, G_MAXINT64);
  /* once */
  g_assert_cmpuint (rtf_queue_collect_missed (q, stamp.times.deadline_ns + 9, m,
          4, &next), ==, 0);

  g_assert (rtf_queue_pop (q) == f);
  finish (q, f);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_OK);
  g = rtf_queue_pop (q);
  g_assert (g != NULL);
  g_assert_cmpuint (g->seq, ==, 1);
  g_assert_true (g->miss_reported);
  finish (q, g);
  /* a frame that did not wait carries nothing of it */
  g = push (q, 1);
  g_assert_false (g->miss_reported);
  g_assert_cmpuint (g->seq, ==, 2);
  rtf_queue_free (q);
}

static void
test_flushing_aborts_wait (void)
{
  RtfQueue *q = rtf_queue_new (1, 0, 0);
  ProducerData d = { q, -1, 0 };
  RtfFrame *f;
  GThread *t;

  push (q, 1);
  t = g_thread_new ("producer", blocked_producer, &d);
  g_usleep (20000);
  rtf_queue_set_flushing (q, TRUE);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_FLUSHING);
  g_assert_cmpint (rtf_queue_barrier (q, NULL), ==, RTF_QUEUE_FLUSHING);
  rtf_queue_set_flushing (q, FALSE);
  /* the frame held before the flush is still there */
  f = rtf_queue_pop (q);
  g_assert (f != NULL);
  g_assert_cmpuint (f->seq, ==, 0);
  rtf_queue_free (q);
}

static void
test_close_refuses (void)
{
  RtfQueue *q = rtf_queue_new (1, 0, 0);
  ProducerData d = { q, -1, 0 };
  RtfFrame *f;
  GThread *t;

  push (q, 1);
  t = g_thread_new ("producer", blocked_producer, &d);
  g_usleep (20000);
  rtf_queue_close (q);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_CLOSED);
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, NULL, &f, NULL), ==,
      RTF_QUEUE_CLOSED);
  g_assert_cmpint (rtf_queue_barrier (q, NULL), ==, RTF_QUEUE_CLOSED);
  rtf_queue_free (q);
}

static gpointer
consumer (gpointer user_data)
{
  RtfQueue *q = user_data;

  for (;;) {
    struct pollfd p = { rtf_queue_doorbell_fd (q), POLLIN, 0 };
    RtfFrame *f;

    poll (&p, 1, -1);
    rtf_queue_ack_doorbell (q);
    while ((f = rtf_queue_pop (q)) != NULL)
      finish (q, f);
    if (rtf_queue_barrier_pending (q))
      rtf_queue_barrier_done (q, 42);
    if (rtf_queue_is_shutdown (q))
      return NULL;
  }
}

static void
test_barrier_after_frames (void)
{
  RtfQueue *q = rtf_queue_new (8, 0, 0);
  GThread *t = g_thread_new ("consumer", consumer, q);
  guint i;
  gint result = 0;

  for (i = 0; i < 1000; i++) {
    RtfFrame *f;

    g_assert_cmpint (rtf_queue_reserve (q, 10, TRUE, NULL, &f, NULL), ==,
        RTF_QUEUE_OK);
    rtf_queue_commit (q, f);
    g_assert_cmpuint (f->seq, ==, i);
  }
  g_assert_cmpint (rtf_queue_barrier (q, &result), ==, RTF_QUEUE_OK);
  g_assert_cmpint (result, ==, 42);
  g_assert_cmpuint (level (q).held, ==, 0);
  g_assert_cmpuint (level (q).written, ==, 1000);
  rtf_queue_shutdown (q);
  g_thread_join (t);
  rtf_queue_free (q);
}

static gpointer
answer_later (gpointer q)
{
  g_usleep (10000);
  rtf_queue_barrier_done (q, 7);
  return NULL;
}

/* A timed barrier nobody answers ends at its time, still asked; a later
 * wait gets the answer; flushing ends a wait and withdraws its request */
static void
test_barrier_until (void)
{
  RtfQueue *q = rtf_queue_new (8, 0, 0);
  gint64 t0 = g_get_monotonic_time ();
  gint result = 0;
  GThread *t;

  g_assert_cmpint (rtf_queue_barrier_until (q, &result, t0 + 20000), ==,
      RTF_QUEUE_TIMEOUT);
  g_assert_cmpint (g_get_monotonic_time () - t0, >=, 20000);
  g_assert_true (rtf_queue_barrier_pending (q));
  t = g_thread_new ("answer", answer_later, q);
  g_assert_cmpint (rtf_queue_barrier_until (q, &result,
          g_get_monotonic_time () + 5 * G_USEC_PER_SEC), ==, RTF_QUEUE_OK);
  g_assert_cmpint (result, ==, 7);
  g_assert_false (rtf_queue_barrier_pending (q));
  g_thread_join (t);
  rtf_queue_set_flushing (q, TRUE);
  g_assert_cmpint (rtf_queue_barrier_until (q, &result,
          g_get_monotonic_time () + 5 * G_USEC_PER_SEC), ==,
      RTF_QUEUE_FLUSHING);
  /* withdrawn: the writer does not end the file later, mid-stream */
  rtf_queue_set_flushing (q, FALSE);
  g_assert_false (rtf_queue_barrier_pending (q));
  rtf_queue_free (q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/queue/order-and-levels", test_order_and_levels);
  g_test_add_func ("/queue/limits", test_limits);
  g_test_add_func ("/queue/cancel", test_cancel);
  g_test_add_func ("/queue/drop-oldest", test_drop_oldest);
  g_test_add_func ("/queue/drop-keeps-recording-starts",
      test_drop_keeps_recording_starts);
  g_test_add_func ("/queue/backlog", test_backlog);
  g_test_add_func ("/queue/collect-missed", test_collect_missed);
  g_test_add_func ("/queue/wait-released-by-space",
      test_wait_released_by_space);
  g_test_add_func ("/queue/waiting-frame-deadline",
      test_waiting_frame_deadline);
  g_test_add_func ("/queue/flushing-aborts-wait", test_flushing_aborts_wait);
  g_test_add_func ("/queue/close-refuses", test_close_refuses);
  g_test_add_func ("/queue/barrier-after-frames", test_barrier_after_frames);
  g_test_add_func ("/queue/barrier-until", test_barrier_until);
  return g_test_run ();
}
