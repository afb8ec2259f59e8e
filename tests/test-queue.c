/* Unit tests of common/rtf-queue.c: the bounded frame queue */
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

  g_assert_cmpint (rtf_queue_reserve (q, size, FALSE, &f, NULL), ==,
      RTF_QUEUE_OK);
  rtf_queue_commit (q, f);
  return f;
}

static void
finish (RtfQueue * q, RtfFrame * f)
{
  f->state = RTF_FRAME_WRITTEN;
  g_assert (rtf_queue_oldest (q) == f);
  rtf_queue_release (q, f);
}

static void
test_order_and_levels (void)
{
  RtfQueue *q = rtf_queue_new (4, 0);
  RtfFrame *a, *b, *f;
  guint frames, queued;
  guint64 bytes;

  g_assert (!doorbell_rung (q));
  a = push (q, 100);
  b = push (q, 200);
  g_assert (doorbell_rung (q));
  rtf_queue_ack_doorbell (q);
  g_assert (!doorbell_rung (q));
  g_assert_cmpuint (a->seq, ==, 0);
  g_assert_cmpuint (b->seq, ==, 1);

  rtf_queue_get_level (q, &frames, &bytes, &queued);
  g_assert_cmpuint (frames, ==, 2);
  g_assert_cmpuint (bytes, ==, 300);
  g_assert_cmpuint (queued, ==, 2);

  f = rtf_queue_pop (q);
  g_assert (f == a);
  g_assert_cmpint (f->state, ==, RTF_FRAME_IN_FLIGHT);
  rtf_queue_get_level (q, &frames, &bytes, &queued);
  g_assert_cmpuint (frames, ==, 2);     /* in flight still counts */
  g_assert_cmpuint (queued, ==, 1);
  g_assert (rtf_queue_pop (q) == b);
  g_assert (rtf_queue_pop (q) == NULL);

  finish (q, a);
  finish (q, b);
  rtf_queue_get_level (q, &frames, &bytes, &queued);
  g_assert_cmpuint (frames, ==, 0);
  g_assert_cmpuint (bytes, ==, 0);
  rtf_queue_free (q);
}

static void
test_limits (void)
{
  RtfQueue *q = rtf_queue_new (3, 1000);
  RtfFrame *f, *big;

  /* an empty queue takes a frame larger than the byte limit */
  big = push (q, 5000);
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, &f, NULL), ==,
      RTF_QUEUE_FULL);
  g_assert (f == NULL);
  g_assert (rtf_queue_pop (q) == big);
  finish (q, big);

  push (q, 400);
  push (q, 400);
  g_assert_cmpint (rtf_queue_reserve (q, 400, FALSE, &f, NULL), ==,
      RTF_QUEUE_FULL);
  push (q, 200);
  /* frame limit */
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, &f, NULL), ==,
      RTF_QUEUE_FULL);
  rtf_queue_free (q);
}

static void
test_cancel (void)
{
  RtfQueue *q = rtf_queue_new (2, 0);
  RtfFrame *f, *g;
  guint frames;

  g_assert_cmpint (rtf_queue_reserve (q, 10, FALSE, &f, NULL), ==,
      RTF_QUEUE_OK);
  rtf_queue_cancel (q, f);
  rtf_queue_get_level (q, &frames, NULL, NULL);
  g_assert_cmpuint (frames, ==, 0);
  g = push (q, 10);
  g_assert (g == f);            /* the same slot again */
  g_assert_cmpuint (g->seq, ==, 0);
  rtf_queue_free (q);
}

typedef struct
{
  RtfQueue *q;
  gint result;                  /* RtfQueueResult, -1 while waiting */
  gint64 waited;
} ProducerData;

static gpointer
blocked_producer (gpointer user_data)
{
  ProducerData *d = user_data;
  RtfFrame *f = NULL;

  d->result = rtf_queue_reserve (d->q, 1, TRUE, &f, &d->waited);
  if (d->result == RTF_QUEUE_OK)
    rtf_queue_commit (d->q, f);
  return NULL;
}

static void
test_wait_released_by_space (void)
{
  RtfQueue *q = rtf_queue_new (1, 0);
  ProducerData d = { q, -1, 0 };
  RtfFrame *f = push (q, 1);
  GThread *t;

  t = g_thread_new ("producer", blocked_producer, &d);
  g_usleep (50000);
  g_assert_cmpint (d.result, ==, -1);   /* still waiting */
  g_assert (rtf_queue_pop (q) == f);
  finish (q, f);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_OK);
  g_assert_cmpint (d.waited, >=, 40000000);     /* the wait is measured */
  rtf_queue_free (q);
}

static void
test_flushing_aborts_wait (void)
{
  RtfQueue *q = rtf_queue_new (1, 0);
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
  RtfQueue *q = rtf_queue_new (1, 0);
  ProducerData d = { q, -1, 0 };
  RtfFrame *f;
  GThread *t;

  push (q, 1);
  t = g_thread_new ("producer", blocked_producer, &d);
  g_usleep (20000);
  rtf_queue_close (q);
  g_thread_join (t);
  g_assert_cmpint (d.result, ==, RTF_QUEUE_CLOSED);
  g_assert_cmpint (rtf_queue_reserve (q, 1, FALSE, &f, NULL), ==,
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
  RtfQueue *q = rtf_queue_new (8, 0);
  GThread *t = g_thread_new ("consumer", consumer, q);
  guint frames, i;
  gint result = 0;

  for (i = 0; i < 1000; i++) {
    RtfFrame *f;

    g_assert_cmpint (rtf_queue_reserve (q, 10, TRUE, &f, NULL), ==,
        RTF_QUEUE_OK);
    rtf_queue_commit (q, f);
    g_assert_cmpuint (f->seq, ==, i);
  }
  g_assert_cmpint (rtf_queue_barrier (q, &result), ==, RTF_QUEUE_OK);
  g_assert_cmpint (result, ==, 42);
  rtf_queue_get_level (q, &frames, NULL, NULL);
  g_assert_cmpuint (frames, ==, 0);
  rtf_queue_shutdown (q);
  g_thread_join (t);
  rtf_queue_free (q);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/queue/order-and-levels", test_order_and_levels);
  g_test_add_func ("/queue/limits", test_limits);
  g_test_add_func ("/queue/cancel", test_cancel);
  g_test_add_func ("/queue/wait-released-by-space",
      test_wait_released_by_space);
  g_test_add_func ("/queue/flushing-aborts-wait", test_flushing_aborts_wait);
  g_test_add_func ("/queue/close-refuses", test_close_refuses);
  g_test_add_func ("/queue/barrier-after-frames", test_barrier_after_frames);
  return g_test_run ();
}
