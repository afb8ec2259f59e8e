/* Unit tests of common/frames/rtf-upstream-gap.c: which frames upstream lost,
 * from its frame counters, timestamps and discontinuity flags */
#include "rtf-upstream-gap.h"

#define NONE G_MAXUINT64
#define FD G_GUINT64_CONSTANT (50000000)        /* 20 fps */

static RtfUpstreamFrame
frame (guint64 offset, guint64 pts, gboolean discont)
{
  RtfUpstreamFrame f;

  f.offset = offset;
  f.offset_end = offset == NONE ? NONE : offset + 1;
  f.pts = pts;
  f.discont = discont;
  return f;
}

static gboolean
check (RtfGapDetector * d, guint64 offset, guint64 pts, gboolean discont,
    RtfUpstreamGap * gap)
{
  RtfUpstreamFrame f = frame (offset, pts, discont);

  return rtf_gap_detector_check (d, &f, gap);
}

static void
assert_no_gap (RtfGapDetector * d, guint64 offset, guint64 pts,
    gboolean discont)
{
  RtfUpstreamGap gap;

  g_assert_false (check (d, offset, pts, discont, &gap));
  g_assert_cmpuint (gap.how, ==, 0);
  g_assert_cmpuint (gap.missing, ==, 0);
  g_assert_cmpuint (gap.first_offset, ==, NONE);
  g_assert_cmpuint (gap.first_pts, ==, NONE);
}

/* v4l2src's sequence numbers: a skip is that many frames, the first of
 * them named by its number and by when it was due */
static void
test_counter_skip (void)
{
  RtfGapDetector d;
  RtfUpstreamGap gap;

  rtf_gap_detector_reset (&d, FD);
  /* the source's first buffer has DISCONT: no gap */
  assert_no_gap (&d, 100, 0, TRUE);
  assert_no_gap (&d, 101, FD, FALSE);
  assert_no_gap (&d, 102, 2 * FD, FALSE);
  g_assert_true (check (&d, 105, 5 * FD, FALSE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_OFFSET);
  g_assert_cmpuint (gap.missing, ==, 2);
  g_assert_cmpuint (gap.first_offset, ==, 103);
  g_assert_cmpuint (gap.first_pts, ==, 3 * FD);
  assert_no_gap (&d, 106, 6 * FD, FALSE);
  /* the counter beats the clock: consecutive numbers are no gap however
   * late the frame (an exposure change, a trigger) */
  assert_no_gap (&d, 107, 20 * FD, FALSE);
  /* ... and a skip counts as the counter says, not as the clock does */
  g_assert_true (check (&d, 110, 21 * FD, FALSE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_OFFSET);
  g_assert_cmpuint (gap.missing, ==, 2);
  g_assert_cmpuint (gap.first_offset, ==, 108);
  /* without a frame rate the count stands, the time of the first is not
   * known */
  rtf_gap_detector_set_frame_duration (&d, 0);
  g_assert_true (check (&d, 112, 22 * FD, FALSE, &gap));
  g_assert_cmpuint (gap.missing, ==, 1);
  g_assert_cmpuint (gap.first_offset, ==, 111);
  g_assert_cmpuint (gap.first_pts, ==, NONE);
}

/* A counter that goes back or repeats started again (a source restarted,
 * a 32-bit driver counter wrapped): the timestamps judge that frame */
static void
test_counter_restart (void)
{
  RtfGapDetector d;
  RtfUpstreamGap gap;

  rtf_gap_detector_reset (&d, FD);
  assert_no_gap (&d, G_MAXUINT32 - 1, 0, FALSE);
  assert_no_gap (&d, G_MAXUINT32, FD, FALSE);
  assert_no_gap (&d, 0, 2 * FD, FALSE);
  assert_no_gap (&d, 1, 3 * FD, FALSE);
  assert_no_gap (&d, 1, 4 * FD, FALSE);
  g_assert_true (check (&d, 0, 8 * FD, FALSE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_TIMESTAMP);
  g_assert_cmpuint (gap.missing, ==, 3);
  g_assert_cmpuint (gap.first_offset, ==, NONE);
  g_assert_cmpuint (gap.first_pts, ==, 5 * FD);
}

/* Offsets that are not a frame counter (bytes: offset_end = offset +
 * size; or only offset set) are not read as one */
static void
test_not_a_counter (void)
{
  RtfGapDetector d;
  RtfUpstreamFrame f;
  RtfUpstreamGap gap;
  guint i;

  rtf_gap_detector_reset (&d, 0);
  for (i = 0; i < 4; i++) {
    f.offset = i * 1408;
    f.offset_end = f.offset + 1408;
    f.pts = NONE;
    f.discont = FALSE;
    g_assert_false (rtf_gap_detector_check (&d, &f, &gap));
  }
  f.offset = 7;
  f.offset_end = NONE;
  g_assert_false (rtf_gap_detector_check (&d, &f, &gap));
  f.offset = 12;
  g_assert_false (rtf_gap_detector_check (&d, &f, &gap));
}

/* No counter: a timestamp later than 1.5 frame durations after the one
 * before is a gap of the frames that fit in it; jitter is not */
static void
test_timestamp_jump (void)
{
  RtfGapDetector d;
  RtfUpstreamGap gap;
  guint64 t = 1000 * FD;

  rtf_gap_detector_reset (&d, FD);
  assert_no_gap (&d, NONE, t, FALSE);
  assert_no_gap (&d, NONE, t += FD + FD * 4 / 10, FALSE);       /* 1.4 */
  assert_no_gap (&d, NONE, t += FD * 6 / 10, FALSE);    /* 0.6 */
  assert_no_gap (&d, NONE, t += FD + FD / 2, FALSE);    /* exactly 1.5 */
  g_assert_true (check (&d, NONE, t + FD + FD / 2 + 1, FALSE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_TIMESTAMP);
  g_assert_cmpuint (gap.missing, ==, 1);        /* 1.5 + 1 ns: two frames */
  g_assert_cmpuint (gap.first_pts, ==, t + FD);
  g_assert_cmpuint (gap.first_offset, ==, NONE);
  t += FD + FD / 2 + 1;
  /* 3 durations: 2 missing; 3.4: still 2; 3.6: 3 */
  g_assert_true (check (&d, NONE, t += 3 * FD, FALSE, &gap));
  g_assert_cmpuint (gap.missing, ==, 2);
  g_assert_true (check (&d, NONE, t += 3 * FD + FD * 4 / 10, FALSE, &gap));
  g_assert_cmpuint (gap.missing, ==, 2);
  g_assert_true (check (&d, NONE, t += 3 * FD + FD * 6 / 10, FALSE, &gap));
  g_assert_cmpuint (gap.missing, ==, 3);
  /* back in time (a new segment): no gap, and the next one is judged
   * from there */
  assert_no_gap (&d, NONE, 5 * FD, FALSE);
  assert_no_gap (&d, NONE, 6 * FD, FALSE);
  /* a frame without a timestamp: nothing to judge by, then or next */
  assert_no_gap (&d, NONE, NONE, FALSE);
  assert_no_gap (&d, NONE, 60 * FD, FALSE);
  /* no frame rate in the caps: timestamps are not judged */
  rtf_gap_detector_set_frame_duration (&d, 0);
  assert_no_gap (&d, NONE, 90 * FD, FALSE);
  /* a huge jump does not overflow */
  rtf_gap_detector_reset (&d, 1);
  assert_no_gap (&d, NONE, 0, FALSE);
  g_assert_true (check (&d, NONE, G_MAXUINT64 - 1, FALSE, &gap));
  g_assert_cmpuint (gap.missing, ==, G_MAXUINT64 - 2);
}

/* DISCONT: a gap wherever it is not the first frame since the reset;
 * counted by the counter or the clock where they can, else 0 (unknown) */
static void
test_discont (void)
{
  RtfGapDetector d;
  RtfUpstreamGap gap;

  rtf_gap_detector_reset (&d, 0);
  assert_no_gap (&d, NONE, NONE, TRUE);
  g_assert_true (check (&d, NONE, NONE, TRUE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_DISCONT);
  g_assert_cmpuint (gap.missing, ==, 0);
  g_assert_cmpuint (gap.first_offset, ==, NONE);
  g_assert_cmpuint (gap.first_pts, ==, NONE);

  rtf_gap_detector_reset (&d, FD);
  assert_no_gap (&d, 0, 0, TRUE);
  g_assert_true (check (&d, 4, 4 * FD, TRUE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_OFFSET | RTF_GAP_DISCONT);
  g_assert_cmpuint (gap.missing, ==, 3);
  /* flagged, though the counter says nothing is missing */
  g_assert_true (check (&d, 5, 5 * FD, TRUE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_DISCONT);
  g_assert_cmpuint (gap.missing, ==, 0);
  /* with the clock */
  g_assert_true (check (&d, NONE, 9 * FD, TRUE, &gap));
  g_assert_cmpuint (gap.how, ==, RTF_GAP_DISCONT | RTF_GAP_TIMESTAMP);
  g_assert_cmpuint (gap.missing, ==, 3);
  g_assert_cmpuint (gap.first_pts, ==, 6 * FD);
  /* after a reset (a flush) the first frame's DISCONT is no gap again */
  rtf_gap_detector_reset (&d, FD);
  assert_no_gap (&d, 50, 100 * FD, TRUE);
}

static void
test_merge_and_names (void)
{
  RtfUpstreamGap a, b, none;

  rtf_upstream_gap_clear (&a);
  rtf_upstream_gap_clear (&none);
  b.how = RTF_GAP_OFFSET;
  b.missing = 3;
  b.first_offset = 10;
  b.first_pts = 500;
  rtf_upstream_gap_merge (&a, &none);
  g_assert_cmpuint (a.how, ==, 0);
  rtf_upstream_gap_merge (&a, &b);
  g_assert_cmpuint (a.how, ==, RTF_GAP_OFFSET);
  g_assert_cmpuint (a.missing, ==, 3);
  g_assert_cmpuint (a.first_offset, ==, 10);
  /* a later gap adds its frames; the first missing stays the earlier's */
  b.how = RTF_GAP_DISCONT | RTF_GAP_TIMESTAMP;
  b.missing = 2;
  b.first_offset = 20;
  b.first_pts = 900;
  rtf_upstream_gap_merge (&a, &b);
  g_assert_cmpuint (a.how, ==, RTF_GAP_HOW_ALL);
  g_assert_cmpuint (a.missing, ==, 5);
  g_assert_cmpuint (a.first_offset, ==, 10);
  g_assert_cmpuint (a.first_pts, ==, 500);
  b.missing = G_MAXUINT64;
  rtf_upstream_gap_merge (&a, &b);
  g_assert_cmpuint (a.missing, ==, G_MAXUINT64);

  g_assert_cmpstr (rtf_gap_how_name (0), ==, "");
  g_assert_cmpstr (rtf_gap_how_name (RTF_GAP_OFFSET), ==, "offset");
  g_assert_cmpstr (rtf_gap_how_name (RTF_GAP_TIMESTAMP), ==, "timestamp");
  g_assert_cmpstr (rtf_gap_how_name (RTF_GAP_OFFSET | RTF_GAP_DISCONT), ==,
      "offset+discont");
  g_assert_cmpstr (rtf_gap_how_name (RTF_GAP_HOW_ALL | 0x100), ==,
      "offset+discont+timestamp");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/upstream-gap/counter-skip", test_counter_skip);
  g_test_add_func ("/upstream-gap/counter-restart", test_counter_restart);
  g_test_add_func ("/upstream-gap/not-a-counter", test_not_a_counter);
  g_test_add_func ("/upstream-gap/timestamp-jump", test_timestamp_jump);
  g_test_add_func ("/upstream-gap/discont", test_discont);
  g_test_add_func ("/upstream-gap/merge-and-names", test_merge_and_names);
  return g_test_run ();
}
