/* Several disks, one stream (locations=) on real disks: XFS filesystems
 * on loop devices, each throttled through the blkio cgroup, one shut
 * down mid-run (xfs_io shutdown), one filled.  Root only (skips
 * otherwise); never in parallel (loop devices, cgroups).
 *
 * The stream is 921,600-byte frames (P010 640x480) pushed at a steady
 * rate by the test; deadline 500 ms, so what decides a miss is whether
 * the disks keep up, not a single slow write. */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <string.h>

#include "rtf-test-spread.h"
#include "rtf-test-util.h"

#define CAPS "video/x-raw,format=P010_10LE,width=640,height=480," \
    "framerate=20/1"
#define FRAME 921600
#define MB (1000 * 1000)
#define PROPS "deadline=500000000 max-size-buffers=16"

typedef struct
{
  RtfTestFs *fs[3];
  guint n;
  gchar *cg;                    /* blkio cgroup of this process, or NULL */
} Disks;

static void
disks_new (Disks * d, guint n)
{
  guint i;

  memset (d, 0, sizeof (*d));
  d->n = n;
  for (i = 0; i < n; i++)
    d->fs[i] = rtf_test_fs_new ("xfs", 400);
}

/* Each disk's write rate (0: none) */
static void
disks_throttle (Disks * d, const guint64 * bps)
{
  guint i;

  for (i = 0; i < d->n; i++) {
    if (d->cg == NULL)
      d->cg = rtf_test_throttle_new (d->fs[i]->loopdev, bps[i]);
    else
      rtf_test_throttle_set (d->cg, d->fs[i]->loopdev, bps[i]);
  }
}

static void
disks_free (Disks * d)
{
  guint i;

  if (d->cg)
    rtf_test_throttle_free (d->cg);
  for (i = 0; i < d->n; i++)
    rtf_test_fs_free (d->fs[i]);
}

/* name on the first n disks */
static gchar **
locations_on (Disks * d, guint n, const gchar * name)
{
  gchar **v = g_new0 (gchar *, n + 1);
  guint i;

  for (i = 0; i < n; i++)
    v[i] = g_build_filename (d->fs[i]->dir, name, NULL);
  return v;
}

/* Records frames 0..n-1 at fps to locs; the stats at EOS (no error) */
static GstStructure *
record_paced (gchar ** locs, const gchar * props, guint64 n, guint fps,
    Rec ** rec)
{
  Rec *r = rtf_test_spread_start (locs, props, CAPS);
  GstStructure *st;

  rtf_test_spread_push (r, 0, n, fps);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  st = rtf_test_get_stats (r->h);
  if (rec) {
    *rec = r;                   /* the caller looks at the messages */
    return st;
  }
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  return st;
}

static guint64
location_u64 (const GstStructure * st, guint i, const gchar * field)
{
  return rtf_test_stat_u64 (rtf_test_spread_location (st, i), field);
}

/* A stream of 27.6 MB/s (30 fps) onto disks of 20 MB/s each: one misses,
 * two keep up (0 misses), and the recording reads back whole */
GST_START_TEST (test_two_disks_keep_up)
{
  const guint64 bps[] = { 20 * MB, 20 * MB };
  guint64 n = 120;
  GstStructure *one, *two;
  gchar **locs1, **locs2, *manifest;
  Disks d;

  if (!rtf_test_have_blkio ())
    return;
  disks_new (&d, 2);
  disks_throttle (&d, bps);
  locs1 = locations_on (&d, 1, "one.raw");
  locs2 = locations_on (&d, 2, "two.raw");
  one = record_paced (locs1, PROPS, n, 30, NULL);
  two = record_paced (locs2, PROPS, n, 30, NULL);
  g_print ("  27.6 MB/s onto 20 MB/s disks: one location %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " frames missed; two %" G_GUINT64_FORMAT
      " (%" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT " frames)\n",
      rtf_test_stat_u64 (one, "frames-missed"), n,
      rtf_test_stat_u64 (two, "frames-missed"), location_u64 (two, 0,
          "frames-written"), location_u64 (two, 1, "frames-written"));
  fail_unless (rtf_test_stat_u64 (one, "frames-missed") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (two, "frames-missed"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (two, "frames-written"), n);
  manifest = rtf_test_spread_manifest (locs2[1]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (one);
  gst_structure_free (two);
  g_free (manifest);
  g_strfreev (locs1);
  g_strfreev (locs2);
  disks_free (&d);
}

GST_END_TEST;

/* Three disks of 12 MB/s for the same stream (6 s): two fall behind,
 * three keep up */
GST_START_TEST (test_three_disks_keep_up)
{
  const guint64 bps[] = { 12 * MB, 12 * MB, 12 * MB };
  guint64 n = 180;
  GstStructure *two, *three;
  gchar **locs2, **locs3, *manifest;
  Disks d;

  if (!rtf_test_have_blkio ())
    return;
  disks_new (&d, 3);
  disks_throttle (&d, bps);
  locs2 = locations_on (&d, 2, "two.raw");
  locs3 = locations_on (&d, 3, "three.raw");
  two = record_paced (locs2, PROPS, n, 30, NULL);
  three = record_paced (locs3, PROPS, n, 30, NULL);
  g_print ("  27.6 MB/s onto 12 MB/s disks: two locations %" G_GUINT64_FORMAT
      " of %" G_GUINT64_FORMAT " frames missed; three %" G_GUINT64_FORMAT
      " (%" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT
      " frames)\n", rtf_test_stat_u64 (two, "frames-missed"), n,
      rtf_test_stat_u64 (three, "frames-missed"), location_u64 (three, 0,
          "frames-written"), location_u64 (three, 1, "frames-written"),
      location_u64 (three, 2, "frames-written"));
  fail_unless (rtf_test_stat_u64 (two, "frames-missed") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (three, "frames-missed"), 0);
  manifest = rtf_test_spread_manifest (locs3[2]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (two);
  gst_structure_free (three);
  g_free (manifest);
  g_strfreev (locs2);
  g_strfreev (locs3);
  disks_free (&d);
}

GST_END_TEST;

/* One disk much slower than the other (40 and 3 MB/s), 18.4 MB/s (20
 * fps): soonest placement sends the slow one fewer frames and misses
 * none; round robin sends it every other frame and misses */
GST_START_TEST (test_slow_disk_gets_fewer)
{
  const guint64 bps[] = { 40 * MB, 3 * MB };
  guint64 n = 60;
  GstStructure *soon, *rr;
  gchar **locs_s, **locs_r, *manifest;
  Disks d;

  if (!rtf_test_have_blkio ())
    return;
  disks_new (&d, 2);
  disks_throttle (&d, bps);
  locs_s = locations_on (&d, 2, "soonest.raw");
  locs_r = locations_on (&d, 2, "rr.raw");
  soon = record_paced (locs_s, PROPS, n, 20, NULL);
  rr = record_paced (locs_r, PROPS " placement=round-robin", n, 20, NULL);
  g_print ("  40 + 3 MB/s disks, 18.4 MB/s: soonest %" G_GUINT64_FORMAT
      " + %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " missed; "
      "round robin %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT ", %"
      G_GUINT64_FORMAT " missed\n", location_u64 (soon, 0, "frames-written"),
      location_u64 (soon, 1, "frames-written"),
      rtf_test_stat_u64 (soon, "frames-missed"), location_u64 (rr, 0,
          "frames-written"), location_u64 (rr, 1, "frames-written"),
      rtf_test_stat_u64 (rr, "frames-missed"));
  fail_unless (location_u64 (soon, 1, "frames-written") <
      location_u64 (soon, 0, "frames-written"));
  fail_unless_equals_uint64 (rtf_test_stat_u64 (soon, "frames-missed"), 0);
  fail_unless (rtf_test_stat_u64 (rr, "frames-missed") > 0);
  manifest = rtf_test_spread_manifest (locs_s[0]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  g_free (manifest);
  manifest = rtf_test_spread_manifest (locs_r[0]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (soon);
  gst_structure_free (rr);
  g_free (manifest);
  g_strfreev (locs_s);
  g_strfreev (locs_r);
  disks_free (&d);
}

GST_END_TEST;

/* The location left in `state`: one RESOURCE warning (code, naming it
 * and saying `why`), one location-left message, no error */
static void
assert_one_left (Rec * r, const gchar * location, gint code,
    const gchar * state, const gchar * why)
{
  guint warnings = 0, left = 0;
  GstMessage *msg;

  while ((msg = gst_bus_pop (r->bus))) {
    GError *err = NULL;
    const GstStructure *s = gst_message_get_structure (msg);

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning (msg, &err, NULL);
      fail_unless (err->domain == GST_RESOURCE_ERROR && err->code == code,
          "%s", err->message);
      fail_unless (strstr (err->message, location) != NULL, "%s", err->message);
      fail_unless (why == NULL || strstr (err->message, why) != NULL, "%s",
          err->message);
      warnings++;
      g_error_free (err);
    } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_message_has_name (msg, "rtframesink-location-left")) {
      fail_unless_equals_string (gst_structure_get_string (s, "location"),
          location);
      fail_unless_equals_string (gst_structure_get_string (s, "state"), state);
      {                         /* the types docs/reference.md gives (issue 26) */
        guint at = G_MAXUINT;
        guint64 index = G_MAXUINT64;
        gint errnum = -1;

        fail_unless (gst_structure_get_uint (s, "location-index", &at));
        fail_unless (gst_structure_get_uint64 (s, "index", &index));
        fail_unless_equals_uint64 (index, at);
        fail_unless (gst_structure_get_int (s, "errno", &errnum));
        fail_unless (errnum >= 0);
      }
      left++;
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (warnings, 1);
  fail_unless_equals_int (left, 1);
}

/* The location failed and left; the stream lost nothing */
static void
assert_left (Rec * r, const GstStructure * st, const gchar * location,
    gint code, guint64 n)
{
  assert_one_left (r, location, code, "failed", NULL);
  fail_unless_equals_string (gst_structure_get_string
      (rtf_test_spread_location (st, 1), "state"), "failed");
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 0);
  rtf_test_assert_accounting (st);
}

/* Fills the filesystem of dir with a file of another owner (path) until
 * `room` bytes are left there */
static void
fill_leaving (const gchar * dir, const gchar * path, guint64 room)
{
  gchar *cmd = g_strdup_printf ("fallocate -l $(( $(stat -f -c '%%a*%%S' %s) "
      "- %" G_GUINT64_FORMAT " )) %s", dir, room, path);

  fail_unless_equals_int (rtf_test_run (cmd), 0);
  g_free (cmd);
}

/* The location stalled and left */
static void
assert_stalled (Rec * r, const gchar * location)
{
  assert_one_left (r, location, GST_RESOURCE_ERROR_WRITE, "stalled",
      "location-timeout");
}

/* One filesystem shuts down mid-run (EIO): the recording goes on at the
 * other, the frames not written there are written again; after the shut
 * down one is mounted again and rtframe-recover has cut its files back to
 * their index, the whole recording verifies and plays in order */
GST_START_TEST (test_one_shut_down)
{
  guint64 n = 100, before = 40, not_durable;
  GstStructure *st;
  gchar **locs, *cmd, *manifest, *out = NULL;
  Disks d;
  Rec *r;

  disks_new (&d, 2);
  locs = locations_on (&d, 2, "cam-%05d.raw");
  /* in turn: the disk that fails has frames in flight when it does */
  r = rtf_test_spread_start (locs, PROPS " max-file-size=20000000 "
      "placement=round-robin", CAPS);
  rtf_test_spread_push (r, 0, before, 20);
  cmd = g_strdup_printf ("xfs_io -x -c 'shutdown -f' %s", d.fs[1]->dir);
  fail_unless_equals_int (rtf_test_run (cmd), 0);
  rtf_test_spread_push (r, before, n, 20);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  st = rtf_test_get_stats (r->h);
  assert_left (r, st, locs[1], GST_RESOURCE_ERROR_WRITE, n);
  g_print ("  xfs shutdown: %" G_GUINT64_FORMAT " frames written to the "
      "other location, %" G_GUINT64_FORMAT " to the shut down one before (%"
      G_GUINT64_FORMAT " durable), %" G_GUINT64_FORMAT " failed over\n",
      location_u64 (st, 0, "frames-written"), location_u64 (st, 1,
          "frames-written"), location_u64 (st, 1, "frames-durable"),
      rtf_test_stat_u64 (st, "frames-failed-over"));
  not_durable = location_u64 (st, 1, "frames-written") -
      location_u64 (st, 1, "frames-durable");
  rtf_test_rec_stop (r);

  rtf_test_fs_remount (d.fs[1], NULL);
  manifest = rtf_test_spread_manifest (locs[0]);
  fail_unless (rtf_test_run_tool (&out, "rtframe-recover", manifest,
          NULL) <= 1, "%s", out);
  /* what the shut down disk had not made durable (sync-interval) may be
   * gone after its log is replayed, as on one location */
  rtf_test_spread_assert_most (manifest, FRAME, n, not_durable);
  gst_structure_free (st);
  g_free (out);
  g_free (manifest);
  g_free (cmd);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* One filesystem fills (someone's file takes all but 30 MB of it): the
 * recording goes on at the other, nothing of theirs is touched */
GST_START_TEST (test_one_full)
{
  guint64 n = 100;
  GstStructure *st;
  gchar **locs, *theirs, *manifest;
  Disks d;
  Rec *r;
  GStatBuf sb;

  disks_new (&d, 2);
  theirs = g_build_filename (d.fs[1]->dir, "theirs.bin", NULL);
  fill_leaving (d.fs[1]->dir, theirs, 30000000);
  fail_unless (g_stat (theirs, &sb) == 0);
  locs = locations_on (&d, 2, "full.raw");
  st = record_paced (locs, PROPS " min-free-space=0 placement=round-robin", n,
      20, &r);
  assert_left (r, st, locs[1], GST_RESOURCE_ERROR_NO_SPACE_LEFT, n);
  g_print ("  full: %" G_GUINT64_FORMAT " frames on the full location, %"
      G_GUINT64_FORMAT " on the other, %" G_GUINT64_FORMAT " failed over\n",
      location_u64 (st, 1, "frames-written"), location_u64 (st, 0,
          "frames-written"), rtf_test_stat_u64 (st, "frames-failed-over"));
  rtf_test_rec_stop (r);
  {
    GStatBuf now;

    fail_unless (g_stat (theirs, &now) == 0);
    fail_unless_equals_uint64 (now.st_size, sb.st_size);
    fail_unless_equals_uint64 (now.st_ino, sb.st_ino);
  }
  manifest = rtf_test_spread_manifest (locs[0]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (st);
  g_free (manifest);
  g_free (theirs);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* Event recording over two disks, one nearly full: the frames held for
 * pre-record are placed over both at the start, those at the full one
 * fail there and are written at the other under their own numbers (a
 * failed-over frame once kept a stale number from its queue cell, and
 * the queue's backlog count wrapped: the stream then waited forever).
 * The recording reads back whole: the frames from the start less
 * pre-record-time to the stop, byte-exact, once each, its start flagged. */
GST_START_TEST (test_held_frames_fail_over)
{
  GstStructure *st;
  gchar **locs, *theirs, *manifest, *out = NULL, *played, *desc;
  guint64 *seqs = NULL, i;
  GstElement *pipe;
  gboolean ok = FALSE;
  gint64 got;
  Disks d;
  Rec *r;

  disks_new (&d, 2);
  theirs = g_build_filename (d.fs[1]->dir, "theirs.bin", NULL);
  /* room for about three frames and their index */
  fill_leaving (d.fs[1]->dir, theirs, 3000000);
  locs = locations_on (&d, 2, "ev-%05d.raw");
  r = rtf_test_spread_start (locs, PROPS " min-free-space=0 preallocate=0 "
      "placement=round-robin record=false pre-record-time=1000000000", CAPS);
  /* 1 s of pre-record: frames 20..39 held at the start (2 s), the stop
   * at 3 s */
  g_signal_emit_by_name (r->h->element, "start-recording",
      (guint64) 2 * GST_SECOND, &ok);
  fail_unless (ok);
  g_signal_emit_by_name (r->h->element, "stop-recording",
      (guint64) 3 * GST_SECOND, &ok);
  fail_unless (ok);
  rtf_test_spread_push (r, 0, 80, 20);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  st = rtf_test_get_stats (r->h);
  g_print ("  held frames failing over: %" G_GUINT64_FORMAT " written at "
      "the full location, %" G_GUINT64_FORMAT " at the other, %"
      G_GUINT64_FORMAT " failed over\n", location_u64 (st, 1,
          "frames-written"), location_u64 (st, 0, "frames-written"),
      rtf_test_stat_u64 (st, "frames-failed-over"));
  fail_unless (rtf_test_stat_u64 (st, "frames-failed-over") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 40);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 0);
  rtf_test_rec_stop (r);

  manifest = rtf_test_spread_manifest (locs[0]);
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", manifest,
          NULL), 0);
  fail_unless (strstr (out, " 40 frames in frame-number order") != NULL, "%s",
      out);
  fail_unless (strstr (out, " 0 frames missing") != NULL, "%s", out);
  g_free (out);
  played = g_build_filename (d.fs[0]->dir, "played.raw", NULL);
  desc = g_strdup_printf ("rtframesrc location=%s ! filesink location=%s",
      manifest, played);
  pipe = rtf_test_play_to_eos (desc);
  rtf_test_stop_pipeline (pipe);
  got = rtf_test_scan_frames (played, FRAME, 0, &seqs);
  fail_unless_equals_int64 (got, 40);
  for (i = 0; i < 40; i++)
    fail_unless_equals_uint64 (seqs[i], 20 + i);
  g_unlink (played);
  g_free (seqs);
  g_free (desc);
  g_free (played);
  gst_structure_free (st);
  g_free (manifest);
  g_free (theirs);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* Issue 23, defect 1: a location fills while 16 small frames are in
 * flight there, so frames after the first that fails have completed out
 * of order.  Each frame the element reports written is byte-exact where
 * the readers find it, once: none failed over without its memory (a
 * GStreamer-CRITICAL, and zeros written at the other location, reported
 * written), none cut from the full location once reported.  Five rounds:
 * the order completions come in varies. */
#define SMALL_CAPS "video/x-raw,format=GRAY8,width=256,height=256," \
    "framerate=20/1"
#define SMALL_FRAME 65536

GST_START_TEST (test_full_out_of_order)
{
  guint round, n = 600;

  for (round = 0; round < 5; round++) {
    gchar **locs, *theirs, *manifest, *name;
    GstStructure *st;
    Disks d;
    Rec *r;

    disks_new (&d, 2);
    theirs = g_build_filename (d.fs[1]->dir, "theirs.bin", NULL);
    /* room for about 20 frames there */
    fill_leaving (d.fs[1]->dir, theirs, 1400000);
    name = g_strdup_printf ("ooo%u.raw", round);
    locs = locations_on (&d, 2, name);
    r = rtf_test_spread_start (locs, "deadline=5000000000 io-depth=16 "
        "max-size-buffers=32 min-free-space=0 preallocate=0 "
        "placement=round-robin", SMALL_CAPS);
    rtf_test_spread_push (r, 0, n, 0);
    fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
    st = rtf_test_get_stats (r->h);
    g_print ("  full with 16 in flight (round %u): %" G_GUINT64_FORMAT
        " frames on the full location, %" G_GUINT64_FORMAT " failed over\n",
        round, location_u64 (st, 1, "frames-written"),
        rtf_test_stat_u64 (st, "frames-failed-over"));
    if (g_getenv ("RTF_DEBUG_STATS")) {
      gchar *t = gst_structure_to_string (st);
      g_print ("%s\n", t);
      g_free (t);
    }
    fail_unless (rtf_test_stat_u64 (st, "frames-failed-over") > 0);
    assert_left (r, st, locs[1], GST_RESOURCE_ERROR_NO_SPACE_LEFT, n);
    rtf_test_rec_stop (r);
    manifest = rtf_test_spread_manifest (locs[0]);
    rtf_test_spread_assert_whole (manifest, SMALL_FRAME, n);
    gst_structure_free (st);
    g_free (manifest);
    g_free (name);
    g_free (theirs);
    g_strfreev (locs);
    disks_free (&d);
  }
}

GST_END_TEST;

/* Two disks of 200 MB/s, name on both, recording with props: frames
 * 0..before-1 at 20 fps, then disk `stalled` throttled to 100 kB/s (a
 * 921,600-byte frame takes 9 s: a disk that stalls) */
static Rec *
start_then_stall (Disks * d, gchar *** locs, const gchar * name,
    const gchar * props, guint64 before, guint stalled)
{
  guint64 bps[] = { 200 * MB, 200 * MB };
  Rec *r;

  disks_new (d, 2);
  disks_throttle (d, bps);
  *locs = locations_on (d, 2, name);
  r = rtf_test_spread_start (*locs, props, CAPS);
  rtf_test_spread_push (r, 0, before, 20);
  bps[stalled] = 100 * 1000;
  disks_throttle (d, bps);
  return r;
}

/* The stalled disk moves again */
static void
unstall (Disks * d)
{
  const guint64 none[] = { 0, 0 };

  disks_throttle (d, none);
}

/* Waits until the files of the recording are let go by writes given up
 * at stop (they end once the disk moves) */
static void
wait_let_go (const gchar * manifest)
{
  gchar *out = NULL;
  guint tries;

  for (tries = 0; tries < 100; tries++) {
    g_clear_pointer (&out, g_free);
    if (rtf_test_run_tool (&out, "rtframe-verify", "--allow-gaps", manifest,
            NULL) == 0)
      break;
    g_usleep (200 * 1000);
  }
  fail_unless (tries < 100, "%s", out);
  g_free (out);
}

/* One disk stalls mid-run (throttled to 100 KB/s: a 0.9 MB frame takes
 * 9 s) and stays stalled past location-timeout: it is left, and the
 * frames it held - queued and in flight, not reported written - are
 * written again at the other at once, not when its writes end.  When
 * they do end, its file keeps only the frames reported written before:
 * the recording reads back whole, no frame twice. */
GST_START_TEST (test_stalled_disk_left)
{
  guint64 n = 100, before = 40;
  GstStructure *st;
  gchar **locs, *manifest, *out = NULL;
  gint64 t0, eos_us;
  Disks d;
  Rec *r;

  if (!rtf_test_have_blkio ())
    return;
  /* in turn: the disk that stalls holds frames when it does */
  r = start_then_stall (&d, &locs, "stall.raw", PROPS " placement=round-robin "
      "location-timeout=300000000 stop-timeout=500000000", before, 1);
  rtf_test_spread_push (r, before, n, 20);
  t0 = g_get_monotonic_time ();
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  eos_us = g_get_monotonic_time () - t0;
  st = rtf_test_get_stats (r->h);
  assert_stalled (r, locs[1]);
  g_print ("  a disk stalled: %" G_GUINT64_FORMAT " frames written there "
      "before, %" G_GUINT64_FORMAT " at the other; %" G_GUINT64_FORMAT
      " written again (%" G_GUINT64_FORMAT " still in flight at the stalled "
      "disk); EOS took %.0f ms\n", location_u64 (st, 1, "frames-written"),
      location_u64 (st, 0, "frames-written"), rtf_test_stat_u64 (st,
          "frames-failed-over"), location_u64 (st, 1, "frames-in-flight"),
      eos_us / 1e3);
  fail_unless_equals_string (gst_structure_get_string
      (rtf_test_spread_location (st, 1), "state"), "stalled");
  fail_unless (rtf_test_stat_u64 (st, "frames-failed-over") > 0);
  /* the frames in flight there were handed back, not waited for */
  fail_unless (location_u64 (st, 1, "frames-in-flight") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-missed"), 0);
  rtf_test_assert_accounting (st);

  /* a stop while it is still stalled gives it up after stop-timeout, but
   * nothing was lost there: no error */
  fail_unless_equals_int (gst_element_set_state (r->h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  /* its writes end: its file is cut back to the frames reported */
  unstall (&d);
  manifest = rtf_test_spread_manifest (locs[0]);
  wait_let_go (manifest);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          manifest, NULL), 0);
  fail_unless (strstr (out, " 0 found twice") != NULL, "%s", out);
  gst_structure_free (st);
  g_free (out);
  g_free (manifest);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* An event recorder's disk stalls as a recording ends, frames of it in
 * flight there: between recordings no frame is placed, yet the stall is
 * seen (location-timeout) and those frames are written at the other disk
 * at once - not held in memory until the next recording places a frame
 * (then written into its files), or EOS. */
GST_START_TEST (test_stall_between_recordings)
{
  GstStructure *st;
  gchar **locs, *manifest;
  gboolean ok = FALSE;
  Disks d;
  Rec *r;

  guint64 bps[] = { 200 * MB, 200 * MB };

  if (!rtf_test_have_blkio ())
    return;
  disks_new (&d, 2);
  disks_throttle (&d, bps);
  locs = locations_on (&d, 2, "ev-%05d.raw");
  r = rtf_test_spread_start (locs, PROPS " placement=round-robin "
      "location-timeout=300000000 stop-timeout=500000000 record=false "
      "pre-record-time=100000000", CAPS);
  g_signal_emit_by_name (r->h->element, "start-recording", (guint64) 0, &ok);
  fail_unless (ok);
  g_signal_emit_by_name (r->h->element, "stop-recording",
      (guint64) 2 * GST_SECOND, &ok);
  fail_unless (ok);
  /* the recording (frames 0..39), its last two as the disk stalls, then
   * a second of frames not recorded */
  rtf_test_spread_push (r, 0, 38, 20);
  bps[1] = 100 * 1000;
  disks_throttle (&d, bps);
  rtf_test_spread_push (r, 38, 60, 20);
  st = rtf_test_get_stats (r->h);
  g_print ("  stalled as a recording ended: %" G_GUINT64_FORMAT " frames "
      "written again at the other disk, %" G_GUINT64_FORMAT " written, "
      "between recordings\n", rtf_test_stat_u64 (st, "frames-failed-over"),
      rtf_test_stat_u64 (st, "frames-written"));
  fail_unless (rtf_test_stat_u64 (st, "frames-failed-over") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 40);
  gst_structure_free (st);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_element_set_state (r->h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  rtf_test_rec_stop (r);
  unstall (&d);
  manifest = rtf_test_spread_manifest (locs[0]);
  wait_let_go (manifest);
  rtf_test_spread_assert_whole (manifest, FRAME, 40);
  g_free (manifest);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* A disk stalls while render waits for room there (round robin, leaky=no,
 * a queue of 2): the stall is seen while render waits, the location is
 * left after location-timeout, and the stream goes on at the other disk
 * (on c8d0d25, and until the wait was watched, render waited there until
 * the disk moved: 4.8 s of a 5 s stall with location-timeout 300 ms, the
 * adversarial review) */
GST_START_TEST (test_stall_while_render_waits)
{
  guint64 n = 60, before = 20;
  gint64 t0, longest = 0;
  GstStructure *st;
  gchar **locs, *manifest;
  guint64 i;
  Disks d;
  Rec *r;

  if (!rtf_test_have_blkio ())
    return;
  r = start_then_stall (&d, &locs, "wait.raw", "deadline=500000000 "
      "max-size-buffers=2 placement=round-robin location-timeout=300000000 "
      "stop-timeout=500000000", before, 1);
  for (i = before; i < n; i++) {
    t0 = g_get_monotonic_time ();
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
    longest = MAX (longest, g_get_monotonic_time () - t0);
  }
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  st = rtf_test_get_stats (r->h);
  g_print ("  a disk stalled while render waited there: the longest push "
      "took %.0f ms; %" G_GUINT64_FORMAT " frames failed over\n",
      longest / 1e3, rtf_test_stat_u64 (st, "frames-failed-over"));
  assert_stalled (r, locs[1]);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 0);
  /* location-timeout, a slice of it, and the placement again; far below
   * the 9 s a frame takes on the stalled disk */
  fail_unless (longest < 2 * G_USEC_PER_SEC * rtf_test_time_scale (),
      "a push waited %" G_GINT64_FORMAT " us", longest);
  rtf_test_assert_accounting (st);
  fail_unless_equals_int (gst_element_set_state (r->h->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  rtf_test_rec_stop (r);
  unstall (&d);
  manifest = rtf_test_spread_manifest (locs[0]);
  wait_let_go (manifest);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (st);
  g_free (manifest);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* A disk stalls after the last frame, while EOS waits for every location
 * to be written: EOS does not wait for the stall to end - past
 * location-timeout the location is left, its frames written at the other,
 * and the recording ends whole. */
GST_START_TEST (test_stall_during_eos)
{
  guint64 n = 42;
  GstStructure *st;
  gchar **locs, *manifest;
  gint64 t0, eos_us;
  Disks d;
  Rec *r;

  if (!rtf_test_have_blkio ())
    return;
  r = start_then_stall (&d, &locs, "eos.raw", PROPS " placement=round-robin "
      "location-timeout=300000000", n - 2, 1);
  /* the last frame goes to the stalled disk (in turn), EOS right after */
  rtf_test_spread_push (r, n - 2, n, 0);
  t0 = g_get_monotonic_time ();
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  eos_us = g_get_monotonic_time () - t0;
  st = rtf_test_get_stats (r->h);
  assert_stalled (r, locs[1]);
  g_print ("  a disk stalled during EOS: EOS took %.0f ms "
      "(location-timeout 300 ms), %" G_GUINT64_FORMAT " frame(s) written "
      "again\n", eos_us / 1e3, rtf_test_stat_u64 (st, "frames-failed-over"));
  fail_unless (eos_us < 3 * G_USEC_PER_SEC * rtf_test_time_scale (),
      "EOS took %" G_GINT64_FORMAT " us", eos_us);
  fail_unless (rtf_test_stat_u64 (st, "frames-failed-over") > 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-lost"), 0);
  rtf_test_assert_accounting (st);
  unstall (&d);
  rtf_test_rec_stop (r);
  manifest = rtf_test_spread_manifest (locs[0]);
  rtf_test_spread_assert_whole (manifest, FRAME, n);
  gst_structure_free (st);
  g_free (manifest);
  g_strfreev (locs);
  disks_free (&d);
}

GST_END_TEST;

/* A disk stalls and is never left (location-timeout=0): stop gives every
 * location stop-timeout - the second, or the first (the element's own
 * writer task) - then gives the stalled one up with an error saying what
 * was lost; its file, once its writes end, holds the frames reported
 * written and the recording reads back. */
static void
stop_with_stalled (guint stalled)
{
  guint64 n = 26, written;
  GstStructure *st;
  gchar **locs, *manifest;
  gint64 t0, stop_us;
  GstStateChangeReturn ret;
  Disks d;
  Rec *r;

  if (!rtf_test_have_blkio ())
    return;
  r = start_then_stall (&d, &locs, "stop.raw", PROPS " placement=round-robin "
      "location-timeout=0 stop-timeout=1000000000", 20, stalled);
  /* three more frames go to the stalled disk (fewer than its queue) */
  rtf_test_spread_push (r, 20, n, 20);
  g_usleep (300 * 1000);
  st = rtf_test_get_stats (r->h);
  written = rtf_test_stat_u64 (st, "frames-written");
  fail_unless (location_u64 (st, stalled, "frames-in-flight") +
      location_u64 (st, stalled, "frames-queued") > 0);

  t0 = g_get_monotonic_time ();
  ret = gst_element_set_state (r->h->element, GST_STATE_NULL);
  stop_us = g_get_monotonic_time () - t0;
  g_print ("  stop with location %u stalled: %.0f ms (stop-timeout 1000 ms), "
      "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " frames written\n",
      stalled, stop_us / 1e3, written, n);
  fail_unless_equals_int (ret, GST_STATE_CHANGE_SUCCESS);
  fail_unless (stop_us < 4 * G_USEC_PER_SEC * rtf_test_time_scale (),
      "stop took %" G_GINT64_FORMAT " us", stop_us);
  rtf_test_assert_message (r->bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_WRITE, stalled ? "Stopped before 1 location(s) "
      "finished" : "Stopped before the disk finished writing file");
  rtf_test_rec_stop (r);

  /* its writes end (the element may be gone by then): the files are let
   * go and read back */
  unstall (&d);
  manifest = rtf_test_spread_manifest (locs[0]);
  wait_let_go (manifest);
  rtf_test_spread_assert_most (manifest, FRAME, n, n - written);
  gst_structure_free (st);
  g_free (manifest);
  g_strfreev (locs);
  disks_free (&d);
}

GST_START_TEST (test_stop_bounded_every_location)
{
  stop_with_stalled (1);
}

GST_END_TEST;

GST_START_TEST (test_stop_bounded_first_location)
{
  stop_with_stalled (0);
}

GST_END_TEST;

static Suite *
spread_root_suite (void)
{
  Suite *s = suite_create ("spread-root");
  TCase *tc = rtf_test_tcase (s, "disks");

  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_two_disks_keep_up);
  tcase_add_test (tc, test_three_disks_keep_up);
  tcase_add_test (tc, test_slow_disk_gets_fewer);
  tcase_add_test (tc, test_one_shut_down);
  tcase_add_test (tc, test_one_full);
  tcase_add_test (tc, test_held_frames_fail_over);
  tcase_add_test (tc, test_full_out_of_order);
  tcase_add_test (tc, test_stalled_disk_left);
  tcase_add_test (tc, test_stall_between_recordings);
  tcase_add_test (tc, test_stall_while_render_waits);
  tcase_add_test (tc, test_stall_during_eos);
  tcase_add_test (tc, test_stop_bounded_every_location);
  tcase_add_test (tc, test_stop_bounded_first_location);
  return s;
}

int
main (int argc, char **argv)
{
  if (!rtf_test_is_root ()) {
    g_print ("SKIP: spread-root makes loop devices, filesystems and "
        "cgroups: it needs root\n");
    return 77;
  }
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (spread_root_suite (), "spread-root", __FILE__);
}
