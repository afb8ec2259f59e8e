/* gst-check tests of rtframesink writing into a FIFO nobody reads yet, an
 * output that does not move: a flush while render waits, deadlines missed
 * while stuck, a bounded stop, leaky drops. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* ---- flushing while the streaming thread waits ------------------------ */

typedef struct
{
  gchar *path;
  GByteArray *data;
  gint go;                      /* the reader starts reading when set */
} FifoReader;

static gpointer
fifo_reader (gpointer user_data)
{
  FifoReader *r = user_data;
  gint fd = open (r->path, O_RDONLY);
  guint8 buf[65536];
  ssize_t n;

  while (!g_atomic_int_get (&r->go))
    g_usleep (1000);
  while ((n = read (fd, buf, sizeof (buf))) > 0)
    g_byte_array_append (r->data, buf, n);
  close (fd);
  return NULL;
}

typedef struct
{
  GstHarness *h;
  GstBuffer *buf;
  GstFlowReturn ret;
} PushData;

static gpointer
push_thread (gpointer user_data)
{
  PushData *p = user_data;

  p->ret = gst_harness_push (p->h, p->buf);
  return NULL;
}

/* rtframesink writing into a FIFO nobody reads yet: a disk that does not
 * move.  With max-size-buffers=2, frames 0 and 1 fill the queue (the
 * writer is stuck on the first) and a thread pushes frame 2, which waits
 * in render. */
typedef struct
{
  FifoReader r;
  PushData p;
  GThread *reader, *pusher;
  GstBus *bus;
  const gchar *caps;
} Blocked;

static void
blocked_start (Blocked * b, const gchar * props)
{
  gchar *all = g_strdup_printf ("max-size-buffers=2 %s", props ? props : "");
  guint i;

  memset (b, 0, sizeof (*b));
  b->caps = rtf_test_formats[1];        /* 6 MB frames: more than a pipe holds */
  b->r.path = rtf_test_tmp_path ("fifo");
  b->r.data = g_byte_array_new ();
  b->p.ret = GST_FLOW_CUSTOM_SUCCESS;
  fail_unless (mkfifo (b->r.path, 0600) == 0);
  b->reader = g_thread_new ("reader", fifo_reader, &b->r);
  b->p.h = rtf_test_sink_new (b->r.path, all, b->caps, &b->bus);
  g_free (all);
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (b->p.h,
            rtf_test_make_frame (b->p.h, b->caps, i, INPUT_POOL)), GST_FLOW_OK);
  b->p.buf = rtf_test_make_frame (b->p.h, b->caps, 2, INPUT_POOL);
  b->pusher = g_thread_new ("push", push_thread, &b->p);
}

/* A flush gets render out: frame 2 refused. */
static void
blocked_flush (Blocked * b)
{
  fail_unless (gst_harness_push_event (b->p.h, gst_event_new_flush_start ()));
  g_thread_join (b->pusher);
  fail_unless_equals_int (b->p.ret, GST_FLOW_FLUSHING);
  fail_unless (gst_harness_push_event (b->p.h,
          gst_event_new_flush_stop (TRUE)));
}

/* The disk moves again; a new segment and the frame stamped `seq`. */
static void
blocked_resume (Blocked * b, guint64 seq)
{
  g_atomic_int_set (&b->r.go, 1);
  gst_harness_push_event (b->p.h, gst_event_new_segment (&(GstSegment) {
          .format = GST_FORMAT_TIME,.rate = 1.0,.applied_rate = 1.0,.stop =
            GST_CLOCK_TIME_NONE,.duration = GST_CLOCK_TIME_NONE}
      ));
  fail_unless_equals_int (gst_harness_push (b->p.h, rtf_test_make_frame (b->p.h,
              b->caps, seq, INPUT_POOL)), GST_FLOW_OK);
}

/* Stops, and the FIFO got exactly the frames stamped seqs[0..n-1]. */
static void
blocked_finish (Blocked * b, const guint64 * seqs, guint n)
{
  gsize fsize = rtf_test_frame_size (b->caps);
  guint8 *want = g_malloc (fsize);
  guint i;

  rtf_test_sink_free (b->p.h, b->bus);
  g_thread_join (b->reader);
  fail_unless_equals_uint64 (b->r.data->len, n * fsize);
  for (i = 0; i < n; i++) {
    rtf_test_fill_frame (want, fsize, 0, seqs[i]);
    fail_unless (memcmp (want, b->r.data->data + i * fsize, fsize) == 0,
        "frame %u differs", i);
  }
  g_byte_array_unref (b->r.data);
  g_free (b->r.path);
  g_free (want);
}

/* PLAYING -> PAUSED while render waits for room: GstBaseSink unlocks
 * render for the state change, which is no flush - render waits for
 * PLAYING (gst_base_sink_wait_preroll()) and the frame goes in then.  On
 * c8d0d25 render returned FLUSHING and upstream stopped for good (the
 * torture test, seed 0xd03411eabe027661). */
GST_START_TEST (test_pause_while_render_waits)
{
  const guint64 seqs[] = { 0, 1, 2, 3 };
  Blocked b;

  /* (a frame whose deadline passed while it waited is dropped when a
   * state change ends its wait: its miss was told under its number) */
  blocked_start (&b, "deadline=60000000000");
  g_usleep (100 * 1000);        /* frame 2 waits in render */
  gst_element_set_state (b.p.h->element, GST_STATE_PAUSED);
  g_usleep (100 * 1000);
  fail_unless_equals_int (g_atomic_int_get ((gint *) & b.p.ret),
      GST_FLOW_CUSTOM_SUCCESS);
  gst_element_set_state (b.p.h->element, GST_STATE_PLAYING);
  g_atomic_int_set (&b.r.go, 1);
  g_thread_join (b.pusher);
  fail_unless_equals_int (b.p.ret, GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (b.p.h, rtf_test_make_frame (b.p.h,
              b.caps, 3, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (b.p.h, gst_event_new_eos ()));
  rtf_test_assert_no_message (b.bus, GST_MESSAGE_ERROR);
  blocked_finish (&b, seqs, 4);
}

GST_END_TEST;

/* The queue fills, the streaming thread waits in render, and a flush must
 * get it out; frames accepted before the flush are still written, then
 * new ones. */
GST_START_TEST (test_flush_unblocks_waiting_render)
{
  const guint64 seqs[] = { 0, 1, 2 };
  Blocked b;

  blocked_start (&b, NULL);
  g_usleep (200000);
  fail_unless_equals_int (b.p.ret, GST_FLOW_CUSTOM_SUCCESS);    /* waiting */
  blocked_flush (&b);
  blocked_resume (&b, 2);
  blocked_finish (&b, seqs, 3);
}

GST_END_TEST;

/* ---- deadlines, drops, statistics ------------------------------------ */

/* The next rtframesink-deadline-missed message for frame `seq`, waiting up
 * to 2 s (scaled) for it; other element messages are dropped. */
static GstMessage *
wait_missed (GstBus * bus, guint64 seq)
{
  GstMessage *msg;

  while ((msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND *
              rtf_test_time_scale (), GST_MESSAGE_ELEMENT))) {
    if (gst_message_has_name (msg, "rtframesink-deadline-missed")
        && rtf_test_msg_u64 (msg, "frame") == seq)
      return msg;
    gst_message_unref (msg);
  }
  return NULL;
}

/* A frame render holds, waiting for room (leaky=no, the queue full behind
 * a write that does not move), has its deadline watched like a queued
 * one: the miss is posted when the deadline passes, while render still
 * waits (where = waiting), not once render gets room.  A flush then
 * refuses the frame: it counts as received and dropped under the number
 * it was reported with (one QoS message), and the next frame gets the
 * next number. */
GST_START_TEST (test_deadline_seen_while_render_waits)
{
  const guint64 seqs[] = { 0, 1, 3 };
  GstStructure *st;
  GstMessage *msg;
  GList *written, *l;
  GstFormat fmt;
  guint64 processed, dropped;
  Blocked b;
  guint i;

  blocked_start (&b, "deadline=50000000 frame-messages=true");
  msg = wait_missed (b.bus, 2);
  fail_unless (msg != NULL, "frame 2's miss not posted while render waits");
  fail_unless_equals_string (gst_structure_get_string
      (gst_message_get_structure (msg), "where"), "waiting");
  fail_unless (rtf_test_msg_i64 (msg, "lateness") >= 0
      && rtf_test_msg_i64 (msg, "lateness") < 10 * GST_MSECOND *
      rtf_test_time_scale (), "reported %" G_GINT64_FORMAT " ns late",
      rtf_test_msg_i64 (msg, "lateness"));
  fail_unless_equals_int64 (rtf_test_msg_time (msg,
          "deadline") - rtf_test_msg_time (msg, "arrival"), 50 * GST_MSECOND);
  gst_message_unref (msg);
  fail_unless_equals_int (b.p.ret, GST_FLOW_CUSTOM_SUCCESS);    /* waits */

  blocked_flush (&b);
  st = rtf_test_get_stats (b.p.h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), 3);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-dropped"), 1);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-missed"), 3);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);
  msg = gst_bus_timed_pop_filtered (b.bus, 2 * GST_SECOND *
      rtf_test_time_scale (), GST_MESSAGE_QOS);
  fail_unless (msg != NULL, "no QoS message for the refused frame");
  gst_message_parse_qos_stats (msg, &fmt, &processed, &dropped);
  fail_unless_equals_uint64 (dropped, 1);
  gst_message_unref (msg);
  rtf_test_pop_messages (b.bus, "none", NULL);

  /* the next frame is number 3 */
  blocked_resume (&b, 3);
  fail_unless (gst_harness_push_event (b.p.h, gst_event_new_eos ()));
  written = rtf_test_pop_element_messages (b.bus, "rtframesink-frame-written");
  fail_unless_equals_int (g_list_length (written), 3);
  for (l = written, i = 0; l; l = l->next, i++)
    fail_unless_equals_uint64 (rtf_test_msg_u64 (l->data, "frame"), seqs[i]);
  g_list_free_full (written, (GDestroyNotify) gst_message_unref);
  blocked_finish (&b, seqs, 3);
}

GST_END_TEST;

/* A write that does not finish (a FIFO nobody reads yet): its miss is
 * posted when the deadline passes, while the write is still stuck, with
 * either engine. */
static void
miss_reported_during_stall (const gchar * engine)
{
  const gchar *caps = rtf_test_formats[1];      /* 6 MB: more than a pipe holds */
  FifoReader r = { rtf_test_tmp_path ("fifo"), g_byte_array_new (), 0 };
  gchar *props = g_strdup_printf ("io-engine=%s deadline=50000000", engine);
  GstBus *bus;
  GstHarness *h;
  GThread *reader;
  GstMessage *msg;
  const gchar *where;
  gint64 lateness = -1;

  fail_unless (mkfifo (r.path, 0600) == 0);
  reader = g_thread_new ("reader", fifo_reader, &r);
  h = rtf_test_sink_new (r.path, props, caps, &bus);
  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 0,
              INPUT_POOL)), GST_FLOW_OK);
  /* (the recording's start is announced first) */
  while ((msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND *
              rtf_test_time_scale (), GST_MESSAGE_ELEMENT))
      && gst_message_has_name (msg, "rtframesink-recording-started"))
    gst_message_unref (msg);
  fail_unless (msg != NULL, "no message while the write is stuck");
  fail_unless (gst_message_has_name (msg, "rtframesink-deadline-missed"));
  where = gst_structure_get_string (gst_message_get_structure (msg), "where");
  fail_unless_equals_string (where, "in-flight");
  gst_structure_get_int64 (gst_message_get_structure (msg), "lateness",
      &lateness);
  /* measured: 0.06-3.3 ms */
  fail_unless (lateness >= 0 && lateness < 10 * GST_MSECOND *
      rtf_test_time_scale (), "%s: reported %" G_GINT64_FORMAT " ns late",
      engine, lateness);
  /* still stuck: nothing was read */
  fail_unless_equals_int (r.data->len, 0);
  gst_message_unref (msg);

  g_atomic_int_set (&r.go, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  g_thread_join (reader);
  fail_unless_equals_uint64 (r.data->len, rtf_test_frame_size (caps));
  g_byte_array_unref (r.data);
  g_free (r.path);
  g_free (props);
}

GST_START_TEST (test_miss_during_stall_io_uring)
{
  miss_reported_during_stall ("io-uring");
}

GST_END_TEST;

GST_START_TEST (test_miss_during_stall_psync)
{
  miss_reported_during_stall ("psync");
}

GST_END_TEST;

/* A disk that does not move when the pipeline stops: stop() waits
 * stop-timeout, then reports the frames it holds lost and returns; the
 * writer thread ends on its own once the write moves, and until then the
 * same file cannot be recorded again. */
static void
stop_bounded_on_stalled_output (const gchar * engine)
{
  const gchar *caps = rtf_test_formats[1];      /* 6 MB: more than a pipe holds */
  gsize fsize = rtf_test_frame_size (caps);
  FifoReader r = { rtf_test_tmp_path ("fifo"), g_byte_array_new (), 0 };
  guint8 *want = g_malloc (fsize);
  GstStateChangeReturn ret = GST_STATE_CHANGE_FAILURE;
  GstBus *bus;
  GstHarness *h;
  GThread *reader;
  GstMessage *msg;
  GError *err = NULL;
  GstStructure *st;
  gint64 t0, took;
  guint i, tries;
  gint fifo_fd;
  gchar *props;

  fail_unless (mkfifo (r.path, 0600) == 0);
  reader = g_thread_new ("reader", fifo_reader, &r);
  props = g_strdup_printf ("io-engine=%s stop-timeout=300000000 "
      "max-size-buffers=4", engine);
  h = rtf_test_sink_new (r.path, props, caps, &bus);
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);

  t0 = g_get_monotonic_time ();
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  took = g_get_monotonic_time () - t0;
  fail_unless (took >= 300 * 1000 && took < (300 + 2000 *
          rtf_test_time_scale ()) * 1000, "stop took %" G_GINT64_FORMAT
      " us", took);

  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error for the frames not written");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (err->domain == GST_RESOURCE_ERROR);
  fail_unless_equals_int (err->code, GST_RESOURCE_ERROR_WRITE);
  fail_unless (strstr (err->message, r.path) != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "3 frames accepted were not written"),
      "%s", err->message);
  g_clear_error (&err);
  gst_message_unref (msg);

  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), 3);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 3);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);

  /* the stalled writer still owns the file: no second recording into it,
   * under its name or another ("dir/./name": the lock is the inode's) */
  for (i = 0; i < 2; i++) {
    gchar *dir = g_path_get_dirname (r.path);
    gchar *base = g_path_get_basename (r.path);
    gchar *other = g_build_filename (dir, ".", base, NULL);

    g_object_set (h->element, "location", i ? other : r.path, NULL);
    fail_unless_equals_int (gst_element_set_state (h->element,
            GST_STATE_PAUSED), GST_STATE_CHANGE_FAILURE);
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL);
    gst_message_parse_error (msg, &err, NULL);
    fail_unless_equals_int (err->code, GST_RESOURCE_ERROR_BUSY);
    g_clear_error (&err);
    gst_message_unref (msg);
    gst_element_set_state (h->element, GST_STATE_NULL);
    g_free (other);
    g_free (base);
    g_free (dir);
  }
  g_object_set (h->element, "location", r.path, NULL);

  /* the write moves: the thread finishes on its own (the reader sees the
   * end of the pipe when it closes the file), then the file can be
   * recorded again */
  g_atomic_int_set (&r.go, 1);
  g_thread_join (reader);
  /* a reader for the next open, which records nothing */
  fifo_fd = open (r.path, O_RDWR);
  fail_unless (fifo_fd >= 0);
  for (tries = 0; tries < 500 * rtf_test_time_scale (); tries++) {
    ret = gst_element_set_state (h->element, GST_STATE_PAUSED);
    if (ret != GST_STATE_CHANGE_FAILURE)
      break;
    gst_element_set_state (h->element, GST_STATE_NULL);
    g_usleep (10000);
  }
  fail_if (ret == GST_STATE_CHANGE_FAILURE, "the abandoned writer never "
      "ended");
  gst_element_set_state (h->element, GST_STATE_NULL);
  rtf_test_sink_free (h, bus);
  close (fifo_fd);

  /* a pipe cannot be cut back: it got the one frame that was in the kernel
   * (the frames only queued never went out) */
  fail_unless_equals_uint64 (r.data->len, fsize);
  rtf_test_fill_frame (want, fsize, 0, 0);
  fail_unless (memcmp (want, r.data->data, fsize) == 0);
  g_byte_array_unref (r.data);
  g_free (r.path);
  g_free (want);
  g_free (props);
}

GST_START_TEST (test_stop_bounded_on_stalled_output_io_uring)
{
  stop_bounded_on_stalled_output ("io-uring");
}

GST_END_TEST;

GST_START_TEST (test_stop_bounded_on_stalled_output_psync)
{
  stop_bounded_on_stalled_output ("psync");
}

GST_END_TEST;

/* A FIFO nobody reads is a disk that does not move.  With leaky set the
 * streaming thread never waits: frames that do not fit are dropped, each
 * reported, and the output holds exactly the others, in order. */
static void
leaky_on_stuck_output (const gchar * leaky)
{
  const gchar *caps = rtf_test_formats[1];      /* 6 MB frames: more than a pipe holds */
  gsize fsize = rtf_test_frame_size (caps);
  FifoReader r = { rtf_test_tmp_path ("fifo"), g_byte_array_new (), 0 };
  /* a deadline long enough that a frame is only ever missed by a drop */
  gchar *props = g_strdup_printf ("max-size-buffers=3 leaky=%s "
      "deadline=100000000000", leaky);
  GstBus *bus;
  GstHarness *h;
  GThread *reader;
  GstStructure *st;
  GList *missed, *qos = NULL, *l;
  GHashTable *dropped = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  guint8 *want = g_malloc (fsize);
  guint i, n = 12, k;
  gint64 t0;

  fail_unless (mkfifo (r.path, 0600) == 0);
  reader = g_thread_new ("reader", fifo_reader, &r);
  h = rtf_test_sink_new (r.path, props, caps, &bus);
  t0 = g_get_monotonic_time ();
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  /* never waited for the stuck writer */
  fail_unless (g_get_monotonic_time () - t0 < 2 * G_USEC_PER_SEC *
      rtf_test_time_scale ());
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "wait-total"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), n);
  fail_unless (rtf_test_stat_u64 (st, "frames-dropped") >= n - 3 - 1);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);

  g_atomic_int_set (&r.go, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = rtf_test_get_stats (h);
  missed = rtf_test_pop_messages (bus, "rtframesink-deadline-missed", &qos);
  rtf_test_sink_free (h, bus);
  g_thread_join (reader);

  for (l = missed; l; l = l->next) {
    const gchar *where = gst_structure_get_string (gst_message_get_structure
        (l->data), "where");

    if (g_strcmp0 (where, "dropped") == 0) {
      gint64 *seq = g_new (gint64, 1);

      *seq = rtf_test_msg_u64 (l->data, "frame");
      g_hash_table_add (dropped, seq);
    }
  }
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-dropped"),
      g_hash_table_size (dropped));
  fail_unless_equals_int (g_list_length (qos), g_hash_table_size (dropped));
  for (l = qos, k = 1; l; l = l->next, k++) {
    GstFormat fmt;
    guint64 processed, drops;

    gst_message_parse_qos_stats (l->data, &fmt, &processed, &drops);
    fail_unless_equals_int (fmt, GST_FORMAT_BUFFERS);
    fail_unless (drops >= k);
  }
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written") +
      rtf_test_stat_u64 (st, "frames-dropped"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-missed"),
      g_hash_table_size (dropped));
  fail_unless_equals_int (g_list_length (missed), g_hash_table_size (dropped));
  rtf_test_assert_accounting (st);

  /* the output: every frame not dropped, in order, byte-exact */
  fail_unless_equals_uint64 (r.data->len, rtf_test_stat_u64 (st,
          "frames-written") * fsize);
  for (i = 0, k = 0; i < n; i++) {
    gint64 seq = i;

    if (g_hash_table_contains (dropped, &seq))
      continue;
    rtf_test_fill_frame (want, fsize, 0, i);
    fail_unless (memcmp (want, r.data->data + k * fsize, fsize) == 0,
        "frame %u is not at position %u", i, k);
    k++;
  }
  if (g_strcmp0 (leaky, "downstream") == 0) {
    /* the newest frames were kept */
    gint64 last = n - 1;

    fail_if (g_hash_table_contains (dropped, &last));
  }
  g_list_free_full (missed, (GDestroyNotify) gst_message_unref);
  g_list_free_full (qos, (GDestroyNotify) gst_message_unref);
  g_hash_table_destroy (dropped);
  gst_structure_free (st);
  g_byte_array_unref (r.data);
  g_free (r.path);
  g_free (props);
  g_free (want);
}

GST_START_TEST (test_leaky_upstream)
{
  leaky_on_stuck_output ("upstream");
}

GST_END_TEST;

GST_START_TEST (test_leaky_downstream)
{
  leaky_on_stuck_output ("downstream");
}

GST_END_TEST;

static Suite *
sink_stalled_suite (void)
{
  Suite *s = suite_create ("sink-stalled");
  TCase *tc;

  tc = rtf_test_tcase (s, "flushing");
  tcase_add_test (tc, test_flush_unblocks_waiting_render);
  tcase_add_test (tc, test_pause_while_render_waits);

  tc = rtf_test_tcase (s, "deadlines");
  tcase_add_test (tc, test_deadline_seen_while_render_waits);
  tcase_add_test (tc, test_miss_during_stall_io_uring);
  tcase_add_test (tc, test_miss_during_stall_psync);
  tcase_add_test (tc, test_stop_bounded_on_stalled_output_io_uring);
  tcase_add_test (tc, test_stop_bounded_on_stalled_output_psync);
  tcase_add_test (tc, test_leaky_upstream);
  tcase_add_test (tc, test_leaky_downstream);
  return s;
}

GST_CHECK_MAIN (sink_stalled);
