/* Unit tests of common/frames/rtf-recorder.c: an event recorder's decisions - what
 * becomes of each frame, the recordings asked for, the frames held */
#include "rtf-recorder.h"

#include <string.h>

#define MS G_GUINT64_CONSTANT (1000000)

/* A frame of running time rt, arrived at rt (monotonic, ns) */
static RtfHeldFrame
frame_at (guint64 seq, guint64 rt, gsize size)
{
  RtfHeldFrame f = { 0 };

  rtf_frame_times_clear (&f.times);
  f.seq = seq;
  f.size = size;
  f.times.running_time = rt;
  f.times.arrival_ns = (gint64) rt + 7;
  f.data = GSIZE_TO_POINTER (seq + 1);
  return f;
}

/* The producer's part for one frame: its decision, the frames let go and
 * the backlog handed over counted; a frame held is held */
typedef struct
{
  guint written, held, let_go, expired, backlog;
  guint64 first_backlog, last_backlog;
  guint started, stopped;
  guint ended;                  /* stopped in the turn it started */
  guint turns;                  /* more than one at a frame */
  RtfRecordTurn turn;
} Seen;

static RtfRecordAction
feed (RtfRecorder * r, guint64 seq, guint64 rt, gsize size, Seen * s)
{
  RtfRecordAction a = rtf_recorder_next_frame (r, rt, &s->turn);
  RtfHeldFrame h;

  for (;;) {
    s->started += s->turn.started;
    s->stopped += s->turn.stopped + s->turn.ended;
    s->ended += s->turn.ended;
    while (rtf_recorder_pop_expired (r, &h))
      s->expired++;
    while (rtf_recorder_pop_backlog (r, 1000, 50 * MS, &h)) {
      if (s->backlog == 0)
        s->first_backlog = h.seq;
      s->last_backlog = h.seq;
      s->backlog++;
    }
    if (!s->turn.more)
      break;
    s->turns++;
    a = rtf_recorder_next_turn (r, &s->turn);
  }
  switch (a) {
    case RTF_RECORD_WRITE:
      s->written++;
      break;
    case RTF_RECORD_HOLD:
      g_assert_true (rtf_recorder_make_room (r, size));
      while (rtf_recorder_pop_expired (r, &h))
        s->expired++;
      h = frame_at (seq, rt, size);
      rtf_recorder_hold (r, &h);
      s->held++;
      break;
    case RTF_RECORD_LET_GO:
      s->let_go++;
      break;
  }
  return a;
}

static void
drain (RtfRecorder * r)
{
  RtfHeldFrame h;

  while (rtf_recorder_pop_all (r, &h));
  rtf_recorder_free (r);
}

/* record=true: every frame written until a stop at a running time; the
 * frame at it is the first not written */
static void
test_recording_from_the_start (void)
{
  RtfRecorder *r = rtf_recorder_new (TRUE, 0, 0, 0);
  Seen s = { 0 };
  gchar *why = NULL;
  guint i;

  g_assert_true (rtf_recorder_wanted (r));
  g_assert_true (rtf_recorder_stop (r, 500 * MS, &why));
  g_assert_false (rtf_recorder_wanted (r));
  for (i = 0; i < 20; i++)
    feed (r, i, i * 50 * MS, 100, &s);
  g_assert_cmpuint (s.written, ==, 10);
  g_assert_cmpuint (s.let_go, ==, 10);
  g_assert_cmpuint (s.stopped, ==, 1);
  g_assert_cmpuint (s.held, ==, 0);
  /* no recording on: a stop is refused, with a reason */
  g_assert_false (rtf_recorder_stop (r, 2000 * MS, &why));
  g_assert_nonnull (why);
  g_free (why);
  drain (r);
}

/* A start at T with 200 ms of pre-record: the frames from T - 200 ms on
 * are the backlog, oldest first, the older ones let go; the frame at T is
 * the first live one; a stop at T2 ends it before the frame at T2 */
static void
test_start_with_pre_record (void)
{
  RtfRecorder *r = rtf_recorder_new (FALSE, 200 * MS, 100, 0);
  Seen s = { 0 };
  gchar *why = NULL;
  guint i;
  guint64 bytes;

  g_assert_false (rtf_recorder_wanted (r));
  for (i = 0; i < 20; i++)
    feed (r, i, i * 50 * MS, 100, &s);
  /* 200 ms at 50 ms a frame: the newest and the 4 before it (950 back to
   * 750) are kept */
  g_assert_cmpuint (rtf_recorder_held (r, &bytes), ==, 5);
  g_assert_cmpuint (bytes, ==, 500);
  g_assert_cmpuint (s.expired, ==, 15);
  g_assert_true (rtf_recorder_start (r, 1100 * MS, &why));
  g_assert_true (rtf_recorder_wanted (r));
  /* already asked: a stop at or before it cancels it */
  g_assert_true (rtf_recorder_stop (r, 1000 * MS, &why));
  g_assert_false (rtf_recorder_wanted (r));
  g_assert_true (rtf_recorder_start (r, 1100 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 1400 * MS, &why));

  memset (&s, 0, sizeof (s));
  feed (r, 20, 1000 * MS, 100, &s);     /* before the start: held */
  g_assert_cmpuint (s.held, ==, 1);
  g_assert_cmpuint (s.started, ==, 0);
  feed (r, 21, 1050 * MS, 100, &s);
  g_assert_cmpint (feed (r, 22, 1100 * MS, 100, &s), ==, RTF_RECORD_WRITE);
  g_assert_cmpuint (s.started, ==, 1);
  g_assert_cmpuint (s.turn.start_asked, ==, 1100 * MS);
  g_assert_cmpuint (s.turn.start_from, ==, 900 * MS);
  /* held then: 850..1050; 850 is before the recording */
  g_assert_cmpuint (s.backlog, ==, 4);
  g_assert_cmpuint (s.first_backlog, ==, 18);
  g_assert_cmpuint (s.last_backlog, ==, 21);
  for (i = 23; i < 29; i++)
    feed (r, i, i * 50 * MS, 100, &s);
  /* 1150..1350 written, 1400 stops it */
  g_assert_cmpuint (s.written, ==, 1 + 5);
  g_assert_cmpuint (s.stopped, ==, 1);
  g_assert_cmpuint (s.turn.stop_asked, ==, 1400 * MS);
  g_assert_false (rtf_recorder_wanted (r));
  drain (r);
}

/* The backlog is due as if replayed from the start at the frames' own
 * pace, each with the deadline after that */
static void
test_backlog_deadlines (void)
{
  RtfRecorder *r = rtf_recorder_new (FALSE, 1000 * MS, 100, 0);
  RtfRecordTurn turn;
  RtfHeldFrame h;
  gchar *why = NULL;
  guint i;

  for (i = 0; i < 4; i++) {
    g_assert_cmpint (rtf_recorder_next_frame (r, i * 50 * MS, &turn), ==,
        RTF_RECORD_HOLD);
    g_assert_true (rtf_recorder_make_room (r, 10));
    h = frame_at (i, i * 50 * MS, 10);
    rtf_recorder_hold (r, &h);
  }
  g_assert_true (rtf_recorder_start (r, RTF_RECORDER_NEXT, &why));
  g_assert_cmpint (rtf_recorder_next_frame (r, 200 * MS, &turn), ==,
      RTF_RECORD_WRITE);
  g_assert_true (turn.started);
  /* "the next frame": just after the newest one */
  g_assert_cmpuint (turn.start_asked, ==, 150 * MS + 1);
  g_assert_cmpuint (turn.start_from, ==, 0);
  for (i = 0; i < 4; i++) {
    g_assert_true (rtf_recorder_pop_backlog (r, 5000, 50 * MS, &h));
    g_assert_cmpuint (h.seq, ==, i);
    g_assert_cmpint (h.times.deadline_ns, ==, 5000 + i * 50 * MS + 50 * MS);
    /* the times it came with are kept */
    g_assert_cmpint (h.times.arrival_ns, ==, i * 50 * MS + 7);
    g_assert (h.data == GSIZE_TO_POINTER (i + 1));
  }
  g_assert_false (rtf_recorder_pop_backlog (r, 5000, 50 * MS, &h));
  g_assert_cmpuint (rtf_recorder_held (r, NULL), ==, 0);
  drain (r);
}

/* What is held is bounded by frames and by bytes; a frame larger than the
 * byte limit is not held at all */
static void
test_bounds (void)
{
  RtfRecorder *r = rtf_recorder_new (FALSE, 10000 * MS, 4, 1000);
  Seen s = { 0 };
  guint64 bytes;
  guint i;

  for (i = 0; i < 10; i++)
    feed (r, i, i * MS, 100, &s);
  g_assert_cmpuint (rtf_recorder_held (r, &bytes), ==, 4);
  g_assert_cmpuint (s.expired, ==, 6);
  for (i = 10; i < 13; i++)
    feed (r, i, i * MS, 400, &s);
  /* 1000 bytes: two of 400 and one of 100 at most */
  g_assert_cmpuint (rtf_recorder_held (r, &bytes), ==, 2);
  g_assert_cmpuint (bytes, ==, 800);
  g_assert_false (rtf_recorder_make_room (r, 1001));
  drain (r);

  /* no pre-record: nothing held, frames let go */
  r = rtf_recorder_new (FALSE, 0, 10, 0);
  memset (&s, 0, sizeof (s));
  for (i = 0; i < 3; i++)
    feed (r, i, i * MS, 100, &s);
  g_assert_cmpuint (s.let_go, ==, 3);
  drain (r);
}

/* Requests ahead of the frames: stop, start, stop; a start before the
 * stop asked for keeps the recording on; a start while one is on is
 * refused */
static void
test_requests (void)
{
  RtfRecorder *r = rtf_recorder_new (TRUE, 100 * MS, 10, 0);
  Seen s = { 0 };
  gchar *why = NULL;
  guint i;

  g_assert_false (rtf_recorder_start (r, 0, &why));
  g_assert_nonnull (why);
  g_clear_pointer (&why, g_free);
  /* stop at 200, start at 500, stop at 700: two recordings */
  g_assert_true (rtf_recorder_stop (r, 200 * MS, &why));
  g_assert_true (rtf_recorder_start (r, 500 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 700 * MS, &why));
  for (i = 0; i < 20; i++)
    feed (r, i, i * 50 * MS, 100, &s);
  /* 0-150 and 500-650 live, 400-450 as the second one's backlog */
  g_assert_cmpuint (s.written, ==, 4 + 4);
  g_assert_cmpuint (s.backlog, ==, 2);
  g_assert_cmpuint (s.first_backlog, ==, 8);
  /* (record=true: the first starts with the first frame) */
  g_assert_cmpuint (s.started, ==, 2);
  g_assert_cmpuint (s.stopped, ==, 2);
  drain (r);

  /* a start inside the recording asked for, at a time or at the next
   * frame, is refused: the stop stands */
  for (i = 0; i < 2; i++) {
    guint k;

    r = rtf_recorder_new (TRUE, 0, 0, 0);
    memset (&s, 0, sizeof (s));
    g_assert_true (rtf_recorder_stop (r, 200 * MS, &why));
    g_assert_false (rtf_recorder_start (r, i ? RTF_RECORDER_NEXT : 100 * MS,
            &why));
    g_clear_pointer (&why, g_free);
    for (k = 0; k < 10; k++)
      feed (r, k, k * 50 * MS, 100, &s);
    g_assert_cmpuint (s.written, ==, 4);
    g_assert_cmpuint (s.stopped, ==, 1);
    drain (r);
  }

  /* start and stop at the same instant, with frames held: a recording of
   * its backlog alone, the frame at the instant not in it */
  r = rtf_recorder_new (FALSE, 100 * MS, 10, 0);
  memset (&s, 0, sizeof (s));
  for (i = 0; i < 4; i++)
    feed (r, i, i * 50 * MS, 100, &s);
  g_assert_true (rtf_recorder_start (r, 200 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 210 * MS, &why));
  g_assert_cmpint (feed (r, 4, 250 * MS, 100, &s), ==, RTF_RECORD_HOLD);
  g_assert_cmpuint (s.started, ==, 1);
  g_assert_cmpuint (s.stopped, ==, 1);
  g_assert_cmpuint (s.ended, ==, 1);    /* after its start, not before */
  g_assert_cmpuint (s.backlog, ==, 2);  /* 100, 150 */
  drain (r);

  /* a recording of the past asked after the fact (start 100, stop 180,
   * the frames held): one turn stops the recording on, starts the new one
   * and ends it, in that order */
  r = rtf_recorder_new (TRUE, 200 * MS, 10, 0);
  memset (&s, 0, sizeof (s));
  g_assert_true (rtf_recorder_stop (r, 50 * MS, &why));
  for (i = 0; i < 5; i++)
    feed (r, i, i * 50 * MS, 100, &s);  /* 0 written, 50-200 held */
  g_assert_true (rtf_recorder_start (r, 100 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 180 * MS, &why));
  g_assert_cmpint (feed (r, 5, 250 * MS, 100, &s), ==, RTF_RECORD_HOLD);
  g_assert_cmpuint (s.started, ==, 2);  /* (the first: record=true) */
  g_assert_cmpuint (s.ended, ==, 1);
  g_assert_cmpuint (s.stopped, ==, 2);  /* the one on, then the new one */
  g_assert_cmpuint (s.backlog, ==, 3);  /* from 100 - 200 of pre-record:
                                         * 50, 100, 150 */
  drain (r);

  /* frames without a running time follow what was asked: "next" */
  r = rtf_recorder_new (FALSE, 0, 0, 0);
  memset (&s, 0, sizeof (s));
  feed (r, 0, G_MAXUINT64, 100, &s);
  g_assert_true (rtf_recorder_start (r, 300 * MS, &why));
  feed (r, 1, G_MAXUINT64, 100, &s);    /* a time cannot be reached */
  g_assert_true (rtf_recorder_stop (r, RTF_RECORDER_NEXT, &why));
  g_assert_true (rtf_recorder_start (r, RTF_RECORDER_NEXT, &why));
  feed (r, 2, G_MAXUINT64, 100, &s);
  g_assert_cmpuint (s.let_go, ==, 2);
  g_assert_cmpuint (s.written, ==, 1);
  drain (r);
}

/* An extend that reaches a recording asked after the frames passed it,
 * whose frames are still held: they are written (the extended recording
 * is started again over what it now holds), never let go */
static void
test_extend_keeps_held_frames (void)
{
  RtfRecorder *r = rtf_recorder_new (FALSE, 2000 * MS, 100, 0);
  RtfRequest ext = { RTF_REQUEST_EXTEND, 2500 * MS, 600 * MS, NULL };
  RtfRecordReply reply;
  Seen s = { 0 };
  gchar *why = NULL;
  guint i;

  g_assert_true (rtf_recorder_start (r, 500 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 1000 * MS, &why));
  for (i = 0; i <= 60; i++)
    feed (r, i, i * 50 * MS, 100, &s);  /* 0.5-0.95 s written */
  g_assert_cmpuint (s.written, ==, 10);
  /* at 3.0 s: B over 1.5-2.0 s (held), then A extended to 2.5 s over it */
  g_assert_true (rtf_recorder_start (r, 1500 * MS, &why));
  g_assert_true (rtf_recorder_stop (r, 2000 * MS, &why));
  g_assert_true (rtf_recorder_request (r, &ext, TRUE, &reply));
  g_assert_cmpstr (reply.answer.did, ==, "extended");
  memset (&s, 0, sizeof (s));
  feed (r, 61, 61 * 50 * MS, 100, &s);
  /* the held frames of 1.0-2.45 s: the extended recording holds them */
  g_assert_cmpuint (s.backlog, ==, 30);
  g_assert_cmpuint (s.first_backlog, ==, 20);
  drain (r);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/recorder/from-the-start", test_recording_from_the_start);
  g_test_add_func ("/recorder/start-with-pre-record",
      test_start_with_pre_record);
  g_test_add_func ("/recorder/backlog-deadlines", test_backlog_deadlines);
  g_test_add_func ("/recorder/bounds", test_bounds);
  g_test_add_func ("/recorder/requests", test_requests);
  g_test_add_func ("/recorder/extend-keeps-held-frames",
      test_extend_keeps_held_frames);
  return g_test_run ();
}
