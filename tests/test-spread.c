/* Several disks, one stream (locations=), without root: the placement
 * decision alone, then rtframesink recording to two directories of
 * $TMPDIR, read back through the manifest by rtframe-verify and
 * rtframesrc as one stream, byte-exact.  Throttled and failing disks are
 * test-spread-root.c's. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtf-pattern.h"
#include "rtf-spread-manifest.h"
#include "rtf-spread-place.h"
#include "rtf-test-spread.h"
#include "rtf-test-util.h"

/* 64x16 GRAY10_LE32: 1408 bytes, not a multiple of any block */
#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define FRAME 1408

/* ---- the decision ------------------------------------------------------ */

GST_START_TEST (test_place_soonest)
{
  RtfPlaceCandidate c[2] = {
    {RTF_LOCATION_ACTIVE, 0, 4, 10 * GST_MSECOND},
    {RTF_LOCATION_ACTIVE, 0, 4, 80 * GST_MSECOND},
  };
  RtfPlaceCandidate same[2] = {
    {RTF_LOCATION_ACTIVE, 0, 4, 10 * GST_MSECOND},
    {RTF_LOCATION_ACTIVE, 0, 4, 12 * GST_MSECOND},
  };
  guint turn = 0, i;

  /* idle: the faster disk (a frame every 2.5 ms against 20 ms) */
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 0);
  /* 2 ahead: 7.5 ms, still under half of 20 */
  c[0].held = 2;
  fail_unless_equals_int64 (rtf_place_eta (&c[0]), 7500 * GST_USECOND);
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 0);
  /* 3 ahead: 10 ms, within a factor of two: the one holding fewer */
  c[0].held = 3;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 1);
  c[0].held = 16;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 1);
  /* equal disks, idle: in turn */
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, same, 2,
            &turn, 0), (gint) ((i + 0) % 2));
  /* a location out of the set takes nothing */
  c[1].state = RTF_LOCATION_FAILED;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 0);
  c[0].state = RTF_LOCATION_STALLED;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), -1);
  /* not measured yet: a frame when idle, then none while a measured one
   * takes them */
  c[0].state = c[1].state = RTF_LOCATION_ACTIVE;
  c[1].latency_ns = 0;
  c[1].held = 0;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 1);
  c[1].held = 1;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, 0), 0);
}

GST_END_TEST;

/* With a deadline, locations that both finish within an eighth of it are
 * as good: idle disks of 2 and 5 ms (measured on two equal throttled
 * disks) alternate instead of the first taking every frame; a disk
 * slower than that still gets none while the fast one is free */
GST_START_TEST (test_place_slack)
{
  RtfPlaceCandidate c[2] = {
    {RTF_LOCATION_ACTIVE, 0, 4, 2 * GST_MSECOND},
    {RTF_LOCATION_ACTIVE, 0, 4, 5 * GST_MSECOND},
  };
  gint64 slack = 500 * GST_MSECOND / 8;
  guint turn = 0, i;

  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
            &turn, 0), 0);
  turn = 0;
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
            &turn, slack), (gint) (i % 2));
  /* fewer held wins among equals */
  c[0].held = 1;
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, slack), 1);
  fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
          &turn, slack), 1);
  /* a frame there every 200 ms against one every 0.5 ms: beyond slack */
  c[0].held = 0;
  c[1].latency_ns = 800 * GST_MSECOND;
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
            &turn, slack), 0);
  /* writing 16 at once it finishes one every 50 ms, but a frame placed
   * there takes 800 ms: still beyond slack */
  c[0].depth = c[1].depth = 16;
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_SOONEST, c, 2,
            &turn, slack), 0);
}

GST_END_TEST;

GST_START_TEST (test_place_round_robin)
{
  RtfPlaceCandidate c[3] = {
    {RTF_LOCATION_ACTIVE, 9, 4, 90 * GST_MSECOND},
    {RTF_LOCATION_ACTIVE, 0, 4, 1 * GST_MSECOND},
    {RTF_LOCATION_ACTIVE, 0, 4, 1 * GST_MSECOND},
  };
  guint turn = 0, i;
  gint want[] = { 0, 1, 2, 0, 2, 0, 2 };

  /* in turn, whatever each holds; a failed one skipped */
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    if (i == 4)
      c[1].state = RTF_LOCATION_FAILED;
    fail_unless_equals_int (rtf_place_choose (RTF_PLACEMENT_ROUND_ROBIN, c,
            3, &turn, 0), want[i]);
  }
}

GST_END_TEST;

GST_START_TEST (test_place_latency_estimate)
{
  gint64 e = rtf_place_latency_update (0, 8 * GST_MSECOND);
  guint i;

  /* the first sample is the estimate; then it follows within frames */
  fail_unless_equals_int64 (e, 8 * GST_MSECOND);
  for (i = 0; i < 40; i++)
    e = rtf_place_latency_update (e, 80 * GST_MSECOND);
  fail_unless (e > 79 * GST_MSECOND && e <= 80 * GST_MSECOND, "%"
      G_GINT64_FORMAT, e);
  /* one slow frame moves it by an eighth */
  e = rtf_place_latency_update (10 * GST_MSECOND, 90 * GST_MSECOND);
  fail_unless_equals_int64 (e, 20 * GST_MSECOND);
}

GST_END_TEST;

/* ---- recording to two directories ------------------------------------- */

static gchar **
two_locations (const gchar * name)
{
  gchar **v = g_new0 (gchar *, 3);
  guint i;

  for (i = 0; i < 2; i++) {
    gchar *dir = rtf_test_tmp_path (i ? "b" : "a");

    fail_unless (g_mkdir (dir, 0755) == 0);
    v[i] = g_build_filename (dir, name, NULL);
    g_free (dir);
  }
  return v;
}

static GstStructure *
record_spread (gchar ** locs, const gchar * props, guint64 n)
{
  Rec *r = rtf_test_spread_start (locs, props, CAPS);
  GstStructure *st;

  rtf_test_spread_push (r, 0, n, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  st = rtf_test_get_stats (r->h);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_WARNING);
  rtf_test_rec_stop (r);
  return st;
}

/* The locations' figures add up to the stream's */
static void
assert_locations_add_up (const GstStructure * st, guint64 n)
{
  guint64 placed = 0, written = 0;
  guint i;

  for (i = 0; i < 2; i++) {
    const GstStructure *l = rtf_test_spread_location (st, i);

    fail_unless_equals_string (gst_structure_get_string (l, "state"), "active");
    placed += rtf_test_stat_u64 (l, "frames-placed");
    written += rtf_test_stat_u64 (l, "frames-written");
  }
  fail_unless_equals_uint64 (placed, n);
  fail_unless_equals_uint64 (written, n);
  /* the stream's "location": the first of them */
  fail_unless_equals_string (gst_structure_get_string (st, "location"),
      gst_structure_get_string (rtf_test_spread_location (st, 0), "location"));
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-failed-over"), 0);
  rtf_test_assert_accounting (st);
}

/* Two locations, files split by size: each holds some frames, the
 * manifest beside each names both, and either manifest reads the whole
 * recording in order */
GST_START_TEST (test_two_locations_read_back)
{
  gchar **locs = two_locations ("cam-%05d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  gchar *m1 = rtf_test_spread_manifest (locs[1]);
  RtfSpreadManifest m;
  GstStructure *st;
  gchar *why = NULL;
  guint64 n = 60;

  st = record_spread (locs, "max-file-size=20000", n);
  assert_locations_add_up (st, n);
  fail_unless (rtf_spread_manifest_read (m1, &m, &why), "%s", why);
  fail_unless_equals_int (g_strv_length (m.locations), 2);
  fail_unless_equals_string (m.locations[0], locs[0]);
  fail_unless_equals_string (m.locations[1], locs[1]);
  rtf_spread_manifest_clear (&m);
  rtf_test_spread_assert_whole (m0, FRAME, n);
  rtf_test_spread_assert_whole (m1, FRAME, n);
  gst_structure_free (st);
  g_free (m0);
  g_free (m1);
  g_strfreev (locs);
}

GST_END_TEST;

/* rtframe-dump of a round-robin spread: frame-number order, each line
 * naming the location that holds it (issue 26: both said file 0, no
 * column named the location) */
static void
assert_dump_alternates (const gchar * manifest, guint64 n)
{
  gchar *out = NULL, **lines, **head;
  guint64 i;
  guint at = G_MAXUINT, k;

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-dump", manifest,
          NULL), 0);
  lines = g_strsplit (out, "\n", -1);
  head = g_strsplit (lines[0], ",", -1);
  for (k = 0; head[k]; k++)
    if (g_str_equal (head[k], "location"))
      at = k;
  fail_unless (at != G_MAXUINT, "no location column: %s", lines[0]);
  for (i = 0; i < n; i++) {
    gchar **f = g_strsplit (lines[i + 1], ",", -1);

    fail_unless (g_strv_length (f) > at, "line %" G_GUINT64_FORMAT ": %s", i,
        lines[i + 1]);
    fail_unless_equals_uint64 (g_ascii_strtoull (f[0], NULL, 10), i);
    fail_unless_equals_uint64 (g_ascii_strtoull (f[at], NULL, 10), i % 2);
    g_strfreev (f);
  }
  fail_unless_equals_string (lines[n + 1], "");
  g_strfreev (head);
  g_strfreev (lines);
  g_free (out);
}

/* placement=round-robin: every other frame, whatever the disks do */
GST_START_TEST (test_round_robin_alternates)
{
  gchar **locs = two_locations ("rr.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  GstStructure *st;
  guint64 n = 41;

  st = record_spread (locs, "placement=round-robin", n);
  assert_locations_add_up (st, n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (rtf_test_spread_location (st,
              0), "frames-written"), 21);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (rtf_test_spread_location (st,
              1), "frames-written"), 20);
  rtf_test_spread_assert_whole (m0, FRAME, n);
  assert_dump_alternates (m0, n);
  gst_structure_free (st);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* frame-written names the file and the location that hold the frame:
 * with failover a frame lies out of number order in another location's
 * file, and a file's first-frame..last-frame does not say which frames it
 * holds (torture 0x02bbb7c342b85d4c: frames of files max-files deleted
 * could not be told from frames lost).  Round robin over files of 4
 * frames: frame i at location i % 2, in its file (i / 2) / 4 there. */
GST_START_TEST (test_written_names_file)
{
  gchar **locs = two_locations ("wf-%02d.raw");
  Rec *r = rtf_test_spread_start (locs, "placement=round-robin "
      "frame-messages=true max-file-size=5632", CAPS);
  GList *msgs, *l;
  guint64 i = 0;

  rtf_test_spread_push (r, 0, 24, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  msgs = rtf_test_pop_element_messages (r->bus, "rtframesink-frame-written");
  rtf_test_rec_stop (r);
  fail_unless_equals_int (g_list_length (msgs), 24);
  for (l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    guint64 frame = rtf_test_stat_u64 (s, "frame"), file = 99;
    guint loc = 99;

    fail_unless (gst_structure_get_uint64 (s, "file-index", &file));
    fail_unless (gst_structure_get_uint (s, "location-index", &loc));
    fail_unless_equals_int (loc, frame % 2);
    fail_unless_equals_uint64 (file, frame / 2 / 4);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (s, "offset"),
        (frame / 2 % 4) * FRAME);
    i++;
  }
  fail_unless_equals_uint64 (i, 24);
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  g_strfreev (locs);
}

GST_END_TEST;

/* The stamp of the frame a sample holds (rtf_test_fill_frame()) */
static guint64
sample_frame (GstSample * sample)
{
  GstMapInfo map;
  guint stream = 9;
  guint64 seq = G_MAXUINT64;

  fail_unless (gst_buffer_map (gst_sample_get_buffer (sample), &map,
          GST_MAP_READ));
  fail_unless_equals_int (sscanf ((const gchar *) map.data, "S%02uF%019"
          G_GUINT64_FORMAT, &stream, &seq), 2);
  gst_buffer_unmap (gst_sample_get_buffer (sample), &map);
  return seq;
}

/* rtframesrc seeks across a spread recording (frames alternating between
 * the locations) by frame number and by time, each landing on the frame */
GST_START_TEST (test_src_seeks_across_locations)
{
  gchar **locs = two_locations ("seek-%03d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]), *desc;
  GRand *rand = g_rand_new_with_seed (18);
  GstElement *pipe, *sink;
  GstStructure *st;
  GstSample *sample;
  gint64 dur = 0;
  guint i;

  st = record_spread (locs, "placement=round-robin max-file-size=8000", 31);
  desc = g_strdup_printf ("rtframesrc location=%s ! appsink name=out "
      "sync=false", m0);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  sink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_query_duration (pipe, GST_FORMAT_DEFAULT, &dur));
  fail_unless_equals_int64 (dur, 31);
  for (i = 0; i < 12; i++) {
    guint64 k = g_rand_int_range (rand, 0, 31);

    if (i % 2 == 0)
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_DEFAULT,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, k));
    else                        /* 20 ms into frame k (pts k / 20 s) */
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
              k * GST_SECOND / 20 + 20 * GST_MSECOND));
    sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
    fail_unless (sample != NULL);
    fail_unless_equals_uint64 (sample_frame (sample), k);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_structure_free (st);
  g_rand_free (rand);
  g_free (desc);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* Settings that cannot be spread are refused at start, naming why */
GST_START_TEST (test_refused)
{
  gchar **locs = two_locations ("x-%03d.raw");
  gchar *props, *man;

  /* a pattern and a plain file */
  g_free (locs[1]);
  locs[1] = rtf_test_tmp_path ("b/plain.raw");
  props = rtf_test_spread_props (locs, NULL);
  rtf_test_assert_start_fails ("rtframesink", locs[0], props,
      GST_RESOURCE_ERROR_SETTINGS, "either every location is a pattern");
  g_free (props);
  g_strfreev (locs);
  /* no index, no frame order across locations (torture seeds
   * 0x68307185efbc9e4e, 0x125d23d74b1ad53e: frames read out of order);
   * nothing is created */
  locs = g_new0 (gchar *, 3);
  locs[0] = rtf_test_tmp_path ("a/noidx-%03d.raw");
  locs[1] = rtf_test_tmp_path ("b/noidx-%03d.raw");
  props = rtf_test_spread_props (locs, "index=false");
  rtf_test_assert_start_fails ("rtframesink", locs[0], props,
      GST_RESOURCE_ERROR_SETTINGS, "index=false with several locations");
  man = rtf_spread_manifest_path (locs[0]);
  fail_if (g_file_test (man, G_FILE_TEST_EXISTS), "%s was written", man);
  g_free (man);
  g_free (props);
  g_strfreev (locs);
}

GST_END_TEST;

/* A split asked for (split-now, split-at-running-time) is every
 * location's: each starts its next file at its next frame (with one
 * location's next frame alone, the other kept writing one file) */
GST_START_TEST (test_split_every_location)
{
  gchar **locs = two_locations ("sp-%03d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  guint i;
  Rec *r;

  r = rtf_test_spread_start (locs, "placement=round-robin", CAPS);
  rtf_test_spread_push (r, 0, 10, 0);
  g_signal_emit_by_name (r->h->element, "split-now");
  rtf_test_spread_push (r, 10, 20, 0);
  g_signal_emit_by_name (r->h->element, "split-at-running-time",
      (guint64) 25 * GST_SECOND / 20);
  rtf_test_spread_push (r, 20, 30, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  for (i = 0; i < 3; i++) {
    gchar *a = rtf_pattern_format (locs[0], i), *b =
        rtf_pattern_format (locs[1], i);

    fail_unless (g_file_test (a, G_FILE_TEST_EXISTS), "no %s", a);
    fail_unless (g_file_test (b, G_FILE_TEST_EXISTS), "no %s", b);
    g_free (a);
    g_free (b);
  }
  rtf_test_spread_assert_whole (m0, FRAME, 30);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The recording-started and -stopped messages on the bus, each in order
 * (the bus drained; an error fails) */
static void
recording_messages (GstBus * bus, GList ** started, GList ** stopped)
{
  GstMessage *msg;

  *started = *stopped = NULL;
  while ((msg = gst_bus_pop (bus))) {
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "%" GST_PTR_FORMAT,
        msg);
    if (gst_message_has_name (msg, "rtframesink-recording-started"))
      *started = g_list_append (*started, msg);
    else if (gst_message_has_name (msg, "rtframesink-recording-stopped"))
      *stopped = g_list_append (*stopped, msg);
    else
      gst_message_unref (msg);
  }
}

static guint64
msg_u64 (GstMessage * m, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (m),
          field, &v), "no %s in %" GST_PTR_FORMAT, field, m);
  return v;
}

/* Event recording over two disks: two events asked ahead of the frames,
 * 200 ms of pre-record each; each recording's frames - held and live -
 * are placed over both locations like any frames (at 200 frames a
 * second: the memory frames are held in is shared with a backlog still
 * being written, and a frame pushed sooner finds none), every location's part
 * starts a file of its own, and the recording read back through the
 * manifest is those frames and no other, byte-exact, once each; the
 * index flags one start per recording; one started and one stopped
 * message per recording, whose figures add up the locations' */
GST_START_TEST (test_event_recording_spread)
{
  gchar **locs = two_locations ("ev-%05d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]), *out = NULL;
  gchar *played = rtf_test_tmp_path ("played.raw"), *desc;
  static const guint64 want[] = { 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
    27, 28, 29, 46, 47, 48, 49, 50, 51, 52, 53, 54
  };
  guint64 *seqs = NULL;
  GList *started, *stopped;
  GstElement *pipe;
  gboolean ok = FALSE;
  gint64 got, i;
  Rec *r;

  r = rtf_test_spread_start (locs, "record=false pre-record-time=200000000",
      CAPS);
  g_signal_emit_by_name (r->h->element, "start-recording", 1000 * GST_MSECOND,
      &ok);
  fail_unless (ok);
  g_signal_emit_by_name (r->h->element, "stop-recording", 1500 * GST_MSECOND,
      &ok);
  fail_unless (ok);
  rtf_test_spread_push (r, 0, 40, 200);
  g_signal_emit_by_name (r->h->element, "start-recording", 2500 * GST_MSECOND,
      &ok);
  fail_unless (ok);
  g_signal_emit_by_name (r->h->element, "stop-recording", 2750 * GST_MSECOND,
      &ok);
  fail_unless (ok);
  rtf_test_spread_push (r, 40, 70, 200);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  recording_messages (r->bus, &started, &stopped);
  fail_unless_equals_int (g_list_length (started), 2);
  fail_unless_equals_int (g_list_length (stopped), 2);
  fail_unless_equals_uint64 (msg_u64 (started->data, "first-frame"), 16);
  fail_unless_equals_uint64 (msg_u64 (started->next->data, "first-frame"), 46);
  fail_unless_equals_uint64 (msg_u64 (stopped->data, "frames"), 14);
  fail_unless_equals_uint64 (msg_u64 (stopped->data, "prerecorded-frames"), 4);
  fail_unless_equals_uint64 (msg_u64 (stopped->data, "last-frame"), 29);
  fail_unless_equals_uint64 (msg_u64 (stopped->next->data, "frames"), 9);
  fail_unless_equals_uint64 (msg_u64 (stopped->next->data, "first-frame"), 46);
  fail_unless_equals_uint64 (msg_u64 (stopped->next->data, "last-frame"), 54);
  g_list_free_full (started, (GDestroyNotify) gst_message_unref);
  g_list_free_full (stopped, (GDestroyNotify) gst_message_unref);
  /* two recordings, though each was written in a part at each location */
  {
    GstStructure *stats = NULL;
    guint64 recordings = 0;

    g_object_get (r->h->element, "stats", &stats, NULL);
    fail_unless (gst_structure_get_uint64 (stats, "recordings", &recordings));
    fail_unless_equals_uint64 (recordings, 2);
    gst_structure_free (stats);
  }
  rtf_test_rec_stop (r);

  /* both locations took frames of both recordings: four files */
  for (i = 0; i < 2; i++) {
    gchar *a = rtf_pattern_format (locs[0], i), *b =
        rtf_pattern_format (locs[1], i);

    fail_unless (g_file_test (a, G_FILE_TEST_EXISTS), "no %s", a);
    fail_unless (g_file_test (b, G_FILE_TEST_EXISTS), "no %s", b);
    g_free (a);
    g_free (b);
  }
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", m0,
          NULL), 0);
  fail_unless (strstr (out, " 23 frames in frame-number order") != NULL,
      "%s", out);
  fail_unless (strstr (out, "2 recordings (events), 8 frames held") != NULL,
      "%s", out);
  fail_unless (strstr (out, " 0 frames missing") != NULL, "%s", out);
  g_free (out);
  desc = g_strdup_printf ("rtframesrc location=%s ! filesink location=%s",
      m0, played);
  pipe = rtf_test_play_to_eos (desc);
  rtf_test_stop_pipeline (pipe);
  got = rtf_test_scan_frames (played, FRAME, 0, &seqs);
  fail_unless_equals_int64 (got, G_N_ELEMENTS (want));
  for (i = 0; i < got; i++)
    fail_unless_equals_uint64 (seqs[i], want[i]);
  g_unlink (played);
  g_free (seqs);
  g_free (desc);
  g_free (played);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The files a file name holds: its bytes, inode and times */
typedef struct
{
  gchar *bytes;
  gsize len;
  GStatBuf st;
} Snapshot;

static void
snapshot_take (Snapshot * s, const gchar * path)
{
  fail_unless (g_file_get_contents (path, &s->bytes, &s->len, NULL), "%s",
      path);
  fail_unless (g_lstat (path, &s->st) == 0);
}

static void
snapshot_assert_same (Snapshot * s, const gchar * path)
{
  Snapshot now;

  snapshot_take (&now, path);
  fail_unless_equals_uint64 (now.len, s->len);
  fail_unless (memcmp (now.bytes, s->bytes, s->len) == 0, "%s changed", path);
  fail_unless_equals_uint64 (now.st.st_ino, s->st.st_ino);
  fail_unless_equals_int64 (now.st.st_mtime, s->st.st_mtime);
  g_free (now.bytes);
  g_free (s->bytes);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

/* Names in dir, sorted, as one string */
static gchar *
dir_listing (const gchar * dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const gchar *n;
  gchar *all;

  fail_unless (d != NULL);
  while ((n = g_dir_read_name (d)))
    g_ptr_array_add (names, g_strdup (n));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  all = g_strjoinv (" ", (gchar **) names->pdata);
  g_ptr_array_free (names, TRUE);
  g_dir_close (d);
  return all;
}

/* Issue 23, defect 3: a spread that cannot start - a later location in a
 * directory that is missing (a disk not mounted), or held by another
 * recording - leaves the earlier locations exactly as they were: the
 * previous take's file and index at location 0 keep their bytes and
 * inode, nothing is left beside them (on c8d0d25 the file was emptied,
 * 40960 -> 0 bytes, its index too) */
GST_START_TEST (test_failed_start_touches_nothing)
{
  gchar **locs = two_locations ("take.raw");
  gchar *idx = g_strconcat (locs[0], ".idx", NULL), *props, *before, *after;
  gchar *dir0 = g_path_get_dirname (locs[0]);
  Snapshot data, index;
  Rec *other;

  rtf_test_record (locs[0], NULL, CAPS, 30);    /* the previous take */
  before = dir_listing (dir0);
  snapshot_take (&data, locs[0]);
  snapshot_take (&index, idx);
  fail_unless_equals_uint64 (data.len, 30 * FRAME);

  /* a disk not mounted */
  g_free (locs[1]);
  locs[1] = rtf_test_tmp_path ("not-mounted/take.raw");
  props = rtf_test_spread_props (locs, NULL);
  rtf_test_assert_start_fails ("rtframesink", locs[0], props,
      GST_RESOURCE_ERROR_OPEN_WRITE, "not-mounted");
  g_free (props);
  snapshot_assert_same (&data, locs[0]);
  snapshot_assert_same (&index, idx);
  after = dir_listing (dir0);
  fail_unless_equals_string (after, before);
  g_free (after);

  /* the second location being recorded by someone else */
  g_free (locs[1]);
  locs[1] = rtf_test_tmp_path ("b/take.raw");
  other = rtf_test_rec_start (locs[1], NULL, CAPS);
  snapshot_take (&data, locs[0]);
  snapshot_take (&index, idx);
  props = rtf_test_spread_props (locs, NULL);
  rtf_test_assert_start_fails ("rtframesink", locs[0], props,
      GST_RESOURCE_ERROR_BUSY, NULL);
  g_free (props);
  rtf_test_rec_stop (other);
  snapshot_assert_same (&data, locs[0]);
  snapshot_assert_same (&index, idx);
  after = dir_listing (dir0);
  fail_unless_equals_string (after, before);
  g_free (after);

  /* and with both there, the new take replaces the old one whole */
  g_unlink (locs[1]);
  g_free (locs[1]);
  locs[1] = rtf_test_tmp_path ("b/take2.raw");
  {
    gchar *m0 = rtf_test_spread_manifest (locs[0]);
    GstStructure *st = record_spread (locs, NULL, 12);

    rtf_test_spread_assert_whole (m0, FRAME, 12);
    gst_structure_free (st);
    g_free (m0);
  }
  g_free (before);
  g_free (dir0);
  g_free (idx);
  g_strfreev (locs);
}

GST_END_TEST;

/* Issue 23, defect 4 (the spread's part): locations that would write the
 * same names - one's files another's indexes, one location spelt twice,
 * "%05d" beside "%d" (the same names from file 100000 on) - are refused
 * at start, naming both, before anything is created (on c8d0d25 the
 * first recorded its indexes into the second's files) */
GST_START_TEST (test_locations_share_names)
{
  const gchar *pairs[][2] = {
    {"c-%05d.raw", "c-%05d.raw.idx"},
    {"c.raw", "./c.raw"},
    {"d-%05d.raw", "d-%d.raw"},
    {"e.raw", "e.raw.idx"},
    /* a number glued to digits: file 10 of the first is file 0 of the
     * second (the adversarial review: sampled numbers missed it) */
    {"g%d.raw", "g1%d.raw"},
    {"h%03d.raw", "h1%02d.raw"},
  };
  gchar *dir = rtf_test_tmp_path ("names"), *listing;
  guint i;

  fail_unless (g_mkdir (dir, 0755) == 0);
  for (i = 0; i < G_N_ELEMENTS (pairs); i++) {
    gchar *locs[3] = { g_build_filename (dir, pairs[i][0], NULL),
      g_build_filename (dir, pairs[i][1], NULL), NULL
    };
    gchar *props = rtf_test_spread_props (locs, NULL);

    rtf_test_assert_start_fails ("rtframesink", locs[0], props,
        GST_RESOURCE_ERROR_SETTINGS, "both write");
    g_free (props);
    g_free (locs[0]);
    g_free (locs[1]);
  }
  listing = dir_listing (dir);
  fail_unless_equals_string (listing, "");
  g_free (listing);
  /* names apart in one directory record */
  {
    gchar *locs[3] = { g_build_filename (dir, "left-%03d.raw", NULL),
      g_build_filename (dir, "right-%03d.raw", NULL), NULL
    };
    gchar *m0 = rtf_test_spread_manifest (locs[0]);
    GstStructure *st = record_spread (locs, NULL, 6);

    rtf_test_spread_assert_whole (m0, FRAME, 6);
    gst_structure_free (st);
    g_free (m0);
    g_free (locs[0]);
    g_free (locs[1]);
  }
  g_free (dir);
}

GST_END_TEST;

/* A user's file at a location's first set name, and no frame goes there:
 * left byte for byte, as with one location (the adversarial review: every
 * location's first file was named at start, replacing it, and removed
 * when the recording ended without a frame) */
GST_START_TEST (test_spread_first_name_untouched)
{
  gchar **locs = two_locations ("u-%03d.raw");
  gchar *dir0 = g_path_get_dirname (locs[0]);
  gchar *name0 = g_build_filename (dir0, "u-000.raw", NULL);
  guint round;

  fail_unless (g_file_set_contents (name0, "theirs", -1, NULL));
  for (round = 0; round < 2; round++) {
    Snapshot was;
    Rec *r;

    snapshot_take (&was, name0);
    r = rtf_test_spread_start (locs, NULL, CAPS);
    if (round == 0)
      fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
    rtf_test_rec_stop (r);
    snapshot_assert_same (&was, name0);
  }
  g_free (name0);
  g_free (dir0);
  g_strfreev (locs);
}

GST_END_TEST;

/* A symbolic link at a location's first file is refused, as for
 * location: never written through, never replaced (found by the torture
 * test, seed 0x6197352265d5dbdf: the prepared first file was named over
 * the link) */
GST_START_TEST (test_link_at_location_refused)
{
  const gchar *names[] = { "l.raw", "l-%03d.raw" };
  gchar **dirs = two_locations ("x");
  guint i;

  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    gchar *target = rtf_test_tmp_path (i ? "target1" : "target0");
    gchar *name0 = rtf_pattern_format (names[i], 0);
    gchar *d0 = g_path_get_dirname (dirs[0]), *d1 =
        g_path_get_dirname (dirs[1]);
    gchar *locs[3] = { g_build_filename (d0, names[i], NULL),
      g_build_filename (d1, names[i], NULL), NULL
    };
    gchar *link = g_build_filename (d1, name0, NULL), *props, *to;
    GStatBuf st;

    fail_unless (g_file_set_contents (target, "theirs", -1, NULL));
    fail_unless (symlink (target, link) == 0);
    props = rtf_test_spread_props (locs, NULL);
    rtf_test_assert_start_fails ("rtframesink", locs[0], props,
        GST_RESOURCE_ERROR_OPEN_WRITE, "symbolic link");
    fail_unless (g_lstat (link, &st) == 0 && S_ISLNK (st.st_mode));
    to = g_file_read_link (link, NULL);
    fail_unless_equals_string (to, target);
    g_free (to);
    g_free (props);
    g_free (link);
    g_free (locs[0]);
    g_free (locs[1]);
    g_free (d0);
    g_free (d1);
    g_free (name0);
    g_free (target);
  }
  g_strfreev (dirs);
}

GST_END_TEST;

/* Something else at a manifest's name is left as it was, with a warning;
 * the recording goes on and reads through the other manifest */
GST_START_TEST (test_foreign_manifest_left)
{
  gchar **locs = two_locations ("f.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  gchar *m1 = rtf_test_spread_manifest (locs[1]);
  const gchar *theirs = "not a manifest: someone's notes\n";
  gchar *props = rtf_test_spread_props (locs, NULL), *now = NULL;
  Rec *r;

  fail_unless (g_file_set_contents (m1, theirs, -1, NULL));
  r = rtf_test_rec_start (locs[0], props, CAPS);
  rtf_test_spread_push (r, 0, 10, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_message (r->bus, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_OPEN_WRITE, "manifest");
  rtf_test_rec_stop (r);
  fail_unless (g_file_get_contents (m1, &now, NULL, NULL));
  fail_unless_equals_string (now, theirs);
  rtf_test_spread_assert_whole (m0, FRAME, 10);
  g_free (now);
  g_free (props);
  g_free (m0);
  g_free (m1);
  g_strfreev (locs);
}

GST_END_TEST;

/* Issue 23, F2 (the sink's part): at EOS the manifest beside every
 * location still in the set holds the recording's final state - each
 * location's state and the frames written there -, and loses it before
 * the first frame when the stream goes on after a flush (a crash then
 * must not leave a final state the files contradict); the next EOS
 * writes it again with the new figures */
/* Whether the manifest beside location holds the final state ("final",
 * read as text: a reader of version 2 that knows no final state sees
 * these keys too), and then the frames at each location (both active) */
static gboolean
manifest_final (const gchar * location, guint64 * a, guint64 * b)
{
  gchar *path = rtf_test_spread_manifest (location);
  GKeyFile *kf = g_key_file_new ();
  gchar **states, *final;
  gint *frames;
  gsize n = 0;
  gboolean is_final;

  fail_unless (g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL));
  final = g_key_file_get_value (kf, "rtframe-spread", "final", NULL);
  is_final = g_strcmp0 (final, "true") == 0;
  if (is_final) {
    states = g_key_file_get_string_list (kf, "rtframe-spread",
        "location-states", NULL, NULL);
    fail_unless (states && g_strv_length (states) == 2);
    fail_unless_equals_string (states[0], "active");
    fail_unless_equals_string (states[1], "active");
    frames = g_key_file_get_integer_list (kf, "rtframe-spread",
        "location-frames", &n, NULL);
    fail_unless_equals_int (n, 2);
    *a = frames[0];
    *b = frames[1];
    g_free (frames);
    g_strfreev (states);
  }
  g_free (final);
  g_key_file_free (kf);
  g_free (path);
  return is_final;
}

GST_START_TEST (test_final_manifest_taken_back)
{
  gchar **locs = two_locations ("e-%05d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  Rec *r = rtf_test_spread_start (locs, "placement=round-robin", CAPS);
  guint64 a = 0, b = 0;
  guint i;

  for (i = 0; i < 2; i++)
    fail_if (manifest_final (locs[i], &a, &b));
  rtf_test_spread_push (r, 0, 5, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  for (i = 0; i < 2; i++) {
    fail_unless (manifest_final (locs[i], &a, &b), "not final at EOS");
    fail_unless_equals_uint64 (a, 3);
    fail_unless_equals_uint64 (b, 2);
  }
  fail_unless (gst_harness_push_event (r->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (r->h, gst_event_new_flush_stop (FALSE)));
  {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (r->h, gst_event_new_segment (&seg)));
  }
  rtf_test_spread_push (r, 5, 6, 0);
  for (i = 0; i < 2; i++)
    fail_if (manifest_final (locs[i], &a, &b), "still final after a flush "
        "and a frame");
  rtf_test_spread_push (r, 6, 10, 0);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  for (i = 0; i < 2; i++) {
    fail_unless (manifest_final (locs[i], &a, &b), "not final at EOS");
    fail_unless_equals_uint64 (a + b, 10);
  }
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  rtf_test_spread_assert_whole (m0, FRAME, 10);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* A stop without EOS ends the recording in order too: every writer
 * finished, the manifests get the final state.  A set's location that got
 * no frame holds no file (the one prepared for it is deleted at stop), and
 * only the final state tells that from a disk that died: without it
 * rtframe-verify said the second location was missing (torture seed
 * 0x9c4d571aa338ce82, a restart after one frame) */
GST_START_TEST (test_stop_without_eos_final)
{
  gchar **locs = two_locations ("s-%05d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  gchar *m1 = rtf_test_spread_manifest (locs[1]);
  gchar *dir1 = g_path_get_dirname (locs[1]);
  Rec *r = rtf_test_spread_start (locs, "placement=round-robin", CAPS);
  guint64 a = 0, b = 0;
  GDir *d;
  guint i;

  rtf_test_spread_push (r, 0, 1, 0);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
  for (i = 0; i < 2; i++) {
    fail_unless (manifest_final (locs[i], &a, &b), "not final at stop");
    fail_unless_equals_uint64 (a, 1);
    fail_unless_equals_uint64 (b, 0);
  }
  /* nothing but the manifest at the second location */
  d = g_dir_open (dir1, 0, NULL);
  fail_unless (d != NULL);
  fail_unless_equals_string (g_dir_read_name (d), "s-.raw.rtfspread");
  fail_unless (g_dir_read_name (d) == NULL);
  g_dir_close (d);
  rtf_test_spread_assert_whole (m0, FRAME, 1);
  rtf_test_spread_assert_whole (m1, FRAME, 1);
  g_free (dir1);
  g_free (m1);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* V1 of the second adversarial review: with max-files the sink deletes a
 * location's OLDEST files; a location that then loses its NEWEST file (a
 * user's rm, a disk) holds frames reported written nowhere - rtframe-verify
 * must not say OK, not even with --allow-gaps (those frames were reported
 * written: the final state counts them).  Round robin, 2 frames a file,
 * max-files=3: location 1's last file holds frame 17 (n 18: the only
 * frame after the last one found anywhere) or frames 17 and 19 (n 20). */
static void
assert_file_lost_seen (const gchar * name, guint64 n, gboolean oldest)
{
  gchar **locs = two_locations (name);
  gchar *m0 = rtf_test_spread_manifest (locs[0]), *out = NULL, *last;
  gchar *idx, *props;
  RtfSpreadManifest m;
  GstStructure *st;
  gchar *why = NULL;
  guint64 top = 0, low = G_MAXUINT64, k;

  props = g_strdup_printf ("placement=round-robin max-file-size=%d "
      "max-files=3", 2 * FRAME);
  st = record_spread (locs, props, n);
  fail_unless (rtf_spread_manifest_read (m0, &m, &why), "%s", why);
  fail_unless (m.state == RTF_SPREAD_MANIFEST_FINAL);
  fail_unless (m.ends[1].files_deleted > 0, "max-files deleted nothing");
  rtf_spread_manifest_clear (&m);
  /* before: whole (the frames kept, the first 8 deleted with their files) */
  fail_unless_equals_int (rtf_test_run_tool (NULL, "rtframe-verify", m0,
          NULL), 0);
  for (k = 0; k < 64; k++) {
    gchar *path = rtf_pattern_format (locs[1], k);

    if (g_file_test (path, G_FILE_TEST_EXISTS)) {
      top = k;
      low = MIN (low, k);
    }
    g_free (path);
  }
  last = rtf_pattern_format (locs[1], oldest ? low : top);
  idx = g_strconcat (last, ".idx", NULL);
  fail_unless (g_unlink (last) == 0 && g_unlink (idx) == 0);
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", m0,
          NULL), 1);
  fail_unless (strstr (out, "missing") != NULL, "%s", out);
  g_free (out);
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify",
          "--allow-gaps", m0, NULL), 1);
  fail_unless (strstr (out, oldest ? "after the oldest files, which the "
          "sink deleted" : "reported written there are missing") != NULL,
      "%s", out);
  g_free (out);
  gst_structure_free (st);
  g_free (props);
  g_free (last);
  g_free (idx);
  g_free (m0);
  g_strfreev (locs);
}

GST_START_TEST (test_newest_file_lost_after_max_files)
{
  assert_file_lost_seen ("v1-%03d.raw", 18, FALSE);
}

GST_END_TEST;

/* ... and the first of its files the sink kept (after those it deleted) */
GST_START_TEST (test_first_kept_file_lost_after_max_files)
{
  assert_file_lost_seen ("v1-%03d.raw", 18, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_newest_file_lost_after_max_files_gaps)
{
  assert_file_lost_seen ("v1-%03d.raw", 20, FALSE);
}

GST_END_TEST;

/* V2 of the second adversarial review: a location that failed before
 * any of its frames was durable, and is gone: its frames are gaps (a
 * failed disk may lose frames not yet durable, as at a crash), and the
 * gap's words must not say "none was reported written" beside a final
 * state that says 10 were */
GST_START_TEST (test_gap_wording_final_state)
{
  gchar **locs = two_locations ("v2-%03d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]), *out = NULL, *text;
  gchar *dir1 = g_path_get_dirname (locs[1]);
  GKeyFile *kf = g_key_file_new ();
  GstStructure *st;
  const gchar *name;
  GDir *d;

  st = record_spread (locs, "placement=round-robin max-file-size=5632", 20);
  d = g_dir_open (dir1, 0, NULL);
  fail_unless (d != NULL);
  while ((name = g_dir_read_name (d)))
    if (g_str_has_suffix (name, ".raw") || g_str_has_suffix (name, ".idx")) {
      gchar *path = g_build_filename (dir1, name, NULL);

      fail_unless (g_unlink (path) == 0);
      g_free (path);
    }
  g_dir_close (d);
  fail_unless (g_key_file_load_from_file (kf, m0, G_KEY_FILE_KEEP_COMMENTS,
          NULL));
  g_key_file_set_value (kf, "rtframe-spread", "location-states",
      "active;failed;");
  g_key_file_set_value (kf, "rtframe-spread", "location-frames-durable",
      "10;0;");
  text = g_key_file_to_data (kf, NULL, NULL);
  fail_unless (g_file_set_contents (m0, text, -1, NULL));
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", m0,
          NULL), 1);
  fail_unless (strstr (out, "not yet durable") != NULL, "%s", out);
  fail_unless (strstr (out, "frame numbers missing") != NULL, "%s", out);
  fail_if (strstr (out, "none was reported written") != NULL, "the gaps "
      "are said never reported written beside a final state saying 10 "
      "were: %s", out);
  g_free (out);
  /* as designed: frames not yet durable at a failed disk are gaps */
  fail_unless_equals_int (rtf_test_run_tool (NULL, "rtframe-verify",
          "--allow-gaps", m0, NULL), 0);
  gst_structure_free (st);
  g_key_file_free (kf);
  g_free (text);
  g_free (dir1);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

/* The same locations with another width of the number (c%03d, c%05d):
 * other data names, the same manifest names */
static gchar **
other_width (gchar ** locs, const gchar * name)
{
  gchar **v = g_new0 (gchar *, 3);
  guint i;

  for (i = 0; i < 2; i++) {
    gchar *dir = g_path_get_dirname (locs[i]);

    v[i] = g_build_filename (dir, name, NULL);
    g_free (dir);
  }
  return v;
}

/* The adversarial review, M1: a recording starting at the names of a
 * running one's manifests - another width of the number (other data
 * names: nothing else stops it; on c249b86 it started and replaced the
 * running one's manifests), or the same locations (its files are busy
 * too) - is refused BUSY, and the running one's manifests keep their
 * bytes, inode and time; that one then reads back whole through them.
 * Once it has stopped, its lock is gone and a new take replaces them. */
static void
assert_refused_busy (gchar ** locs, const gchar * m0, const gchar * m1)
{
  gchar *props = rtf_test_spread_props (locs, "max-file-size=8000");
  Snapshot was0, was1;

  snapshot_take (&was0, m0);
  snapshot_take (&was1, m1);
  rtf_test_assert_start_fails ("rtframesink", locs[0], props,
      GST_RESOURCE_ERROR_BUSY, "belongs to a recording that is running");
  snapshot_assert_same (&was0, m0);
  snapshot_assert_same (&was1, m1);
  g_free (props);
}

GST_START_TEST (test_live_manifest_kept)
{
  gchar **locs = two_locations ("l-%03d.raw");
  gchar **wide = other_width (locs, "l-%05d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]);
  gchar *m1 = rtf_test_spread_manifest (locs[1]);
  Rec *a = rtf_test_spread_start (locs, "max-file-size=8000", CAPS);

  assert_refused_busy (wide, m0, m1);
  rtf_test_spread_push (a, 0, 14, 0);
  assert_refused_busy (wide, m0, m1);
  assert_refused_busy (locs, m0, m1);
  rtf_test_spread_push (a, 14, 20, 0);
  fail_unless (gst_harness_push_event (a->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (a->bus, GST_MESSAGE_ERROR);
  rtf_test_assert_no_message (a->bus, GST_MESSAGE_WARNING);
  rtf_test_rec_stop (a);
  rtf_test_spread_assert_whole (m0, FRAME, 20);
  rtf_test_spread_assert_whole (m1, FRAME, 20);
  gst_structure_free (record_spread (locs, NULL, 4));
  rtf_test_spread_assert_whole (m0, FRAME, 4);
  g_free (m0);
  g_free (m1);
  g_strfreev (wide);
  g_strfreev (locs);
}

GST_END_TEST;

/* The adversarial review, M1: patterns that differ in the number's width
 * only (c%03d, c%05d) share the manifest's name; the second recording
 * is refused with a message naming the other recording's manifest, which
 * keeps its bytes (it replaced it, and the first recording could then be
 * read only location by location); nothing is created */
GST_START_TEST (test_other_recordings_manifest_kept)
{
  gchar **a = two_locations ("c%03d.raw"), **b;
  gchar *m0 = rtf_test_spread_manifest (a[0]);
  gchar *m1 = rtf_test_spread_manifest (a[1]);
  gchar *dir0 = g_path_get_dirname (a[0]), *before, *after, *props;
  Snapshot was0, was1;

  gst_structure_free (record_spread (a, "max-file-size=8000", 10));
  b = other_width (a, "c%05d.raw");
  after = rtf_test_spread_manifest (b[0]);
  fail_unless_equals_string (after, m0);        /* the same name */
  g_free (after);
  snapshot_take (&was0, m0);
  snapshot_take (&was1, m1);
  before = dir_listing (dir0);
  props = rtf_test_spread_props (b, NULL);
  rtf_test_assert_start_fails ("rtframesink", b[0], props,
      GST_RESOURCE_ERROR_OPEN_WRITE, "is the manifest of another recording");
  snapshot_assert_same (&was0, m0);
  snapshot_assert_same (&was1, m1);
  after = dir_listing (dir0);
  fail_unless_equals_string (after, before);
  rtf_test_spread_assert_whole (m0, FRAME, 10);
  g_free (after);
  g_free (before);
  g_free (props);
  g_free (dir0);
  g_free (m0);
  g_free (m1);
  g_strfreev (b);
  g_strfreev (a);
}

GST_END_TEST;

/* An earlier take of the same locations (not running) is replaced: its
 * manifests name the new recording, which reads back whole */
GST_START_TEST (test_earlier_take_manifest_replaced)
{
  gchar **locs = two_locations ("t-%03d.raw");
  gchar *m0 = rtf_test_spread_manifest (locs[0]), *why = NULL;
  RtfSpreadManifest first, second;

  gst_structure_free (record_spread (locs, "max-file-size=8000", 12));
  fail_unless (rtf_spread_manifest_read (m0, &first, &why), "%s", why);
  gst_structure_free (record_spread (locs, "max-file-size=8000", 7));
  fail_unless (rtf_spread_manifest_read (m0, &second, &why), "%s", why);
  fail_if (rtf_recording_id_equal (&first.id, &second.id));
  rtf_test_spread_assert_whole (m0, FRAME, 7);
  rtf_spread_manifest_clear (&first);
  rtf_spread_manifest_clear (&second);
  g_free (m0);
  g_strfreev (locs);
}

GST_END_TEST;

static Suite *
spread_suite (void)
{
  Suite *s = suite_create ("spread");
  TCase *tc = tcase_create ("placement");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_place_soonest);
  tcase_add_test (tc, test_place_slack);
  tcase_add_test (tc, test_place_round_robin);
  tcase_add_test (tc, test_place_latency_estimate);
  tc = rtf_test_tcase (s, "recording");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_two_locations_read_back);
  tcase_add_test (tc, test_round_robin_alternates);
  tcase_add_test (tc, test_written_names_file);
  tcase_add_test (tc, test_src_seeks_across_locations);
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_foreign_manifest_left);
  tcase_add_test (tc, test_event_recording_spread);
  tcase_add_test (tc, test_split_every_location);
  tcase_add_test (tc, test_failed_start_touches_nothing);
  tcase_add_test (tc, test_locations_share_names);
  tcase_add_test (tc, test_link_at_location_refused);
  tcase_add_test (tc, test_spread_first_name_untouched);
  tcase_add_test (tc, test_final_manifest_taken_back);
  tcase_add_test (tc, test_stop_without_eos_final);
  tcase_add_test (tc, test_newest_file_lost_after_max_files);
  tcase_add_test (tc, test_newest_file_lost_after_max_files_gaps);
  tcase_add_test (tc, test_first_kept_file_lost_after_max_files);
  tcase_add_test (tc, test_gap_wording_final_state);
  tcase_add_test (tc, test_live_manifest_kept);
  tcase_add_test (tc, test_other_recordings_manifest_kept);
  tcase_add_test (tc, test_earlier_take_manifest_replaced);
  return s;
}

GST_CHECK_MAIN (spread);
