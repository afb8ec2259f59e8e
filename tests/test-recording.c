/* gst-check tests of long recordings: rotation, the frame index,
 * sync-interval, rtframesrc, and the rtframe-verify / rtframe-recover
 * tools - real files in $TMPDIR, read back byte by byte. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rtf-crc32c.h"
#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 64x16 GRAY10_LE32: 1408 bytes, not a multiple of any block */
#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define CAPS_B "video/x-raw,format=GRAY10_LE32,width=32,height=16,framerate=20/1"
#define FRAME 1408
#define FRAME_B 704
#define PTS(i) ((i) * GST_SECOND / 20)

static gint run_tool (const gchar * tool, const gchar * arg1,
    const gchar * arg2, gchar ** out);

static gchar *
file_of (const gchar * pattern, guint64 n)
{
  return rtf_pattern_format (pattern, n);
}

/* `path` holds exactly frames first .. first + n - 1 (stream 0) */
static void
assert_frames (const gchar * path, gsize size, guint64 from, guint64 n)
{
  rtf_test_assert_frames (path, size, from, n);
}

static void
push_eos (Rec * r)
{
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
}

typedef struct
{
  guint64 index, first, last, frames, bytes;
  gchar *location;
} FileMsg;

/* The file-opened or file-closed messages on the bus, by file index
 * (other messages are dropped) */
static GArray *
file_messages (GstBus * bus, const gchar * name)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (FileMsg));
  GList *keep = NULL, *l;
  GstMessage *msg;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT)) != NULL) {
    const GstStructure *s = gst_message_get_structure (msg);
    FileMsg m = { 0 };

    if (gst_structure_has_name (s, name)) {
      fail_unless (gst_structure_get_uint64 (s, "index", &m.index));
      fail_unless (gst_structure_get_uint64 (s, "first-frame", &m.first));
      gst_structure_get_uint64 (s, "last-frame", &m.last);
      gst_structure_get_uint64 (s, "frames", &m.frames);
      gst_structure_get_uint64 (s, "bytes", &m.bytes);
      m.location = g_strdup (gst_structure_get_string (s, "location"));
      g_array_append_val (out, m);
      gst_message_unref (msg);
    } else {
      keep = g_list_append (keep, msg);
    }
  }
  /* the others go back, for the next look */
  for (l = keep; l; l = l->next)
    gst_bus_post (bus, l->data);
  g_list_free (keep);
  return out;
}

static void
file_messages_free (GArray * a)
{
  guint i;

  for (i = 0; i < a->len; i++)
    g_free (g_array_index (a, FileMsg, i).location);
  g_array_unref (a);
}

static const FileMsg *
find_msg (GArray * a, guint64 index)
{
  guint i;

  for (i = 0; i < a->len; i++)
    if (g_array_index (a, FileMsg, i).index == index)
      return &g_array_index (a, FileMsg, i);
  fail ("no message for file %" G_GUINT64_FORMAT, index);
  return NULL;
}

/* Frames split into files of `per_file` frames (the last may be short),
 * numbered from `first_index`; messages name each file and its frames. */
static void
assert_rotated (Rec * r, const gchar * pattern, guint64 first_index,
    guint64 frames, guint64 per_file)
{
  guint64 n_files = (frames + per_file - 1) / per_file, k;
  GArray *opened = file_messages (r->bus, "rtframesink-file-opened");
  GArray *closed = file_messages (r->bus, "rtframesink-file-closed");

  fail_unless_equals_int (opened->len, n_files);
  fail_unless_equals_int (closed->len, n_files);
  for (k = 0; k < n_files; k++) {
    guint64 from = k * per_file, n = MIN (per_file, frames - from);
    guint64 to = from + n - 1;
    gchar *path = file_of (pattern, first_index + k);
    const FileMsg *o = find_msg (opened, first_index + k);
    const FileMsg *c = find_msg (closed, first_index + k);

    assert_frames (path, FRAME, from, n);
    fail_unless_equals_string (o->location, path);
    fail_unless_equals_uint64 (o->first, from);
    fail_unless_equals_string (c->location, path);
    fail_unless_equals_uint64 (c->first, from);
    fail_unless_equals_uint64 (c->last, to);
    fail_unless_equals_uint64 (c->frames, n);
    fail_unless_equals_uint64 (c->bytes, n * FRAME);
    g_free (path);
  }
  /* the file after the last one was opened ahead and is gone again */
  {
    gchar *next = file_of (pattern, first_index + n_files);

    fail_if (g_file_test (next, G_FILE_TEST_EXISTS), "%s left behind", next);
    g_free (next);
  }
  file_messages_free (opened);
  file_messages_free (closed);
}

/* loop: io_uring, then the pwrite engine */
GST_START_TEST (test_rotation_by_size)
{
  gchar *pattern = rtf_test_tmp_path ("size-%02d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%d io-engine=%s checksums=%s",
      FRAME * 3 + FRAME / 2, __i__ ? "psync" : "io-uring",
      __i__ ? "true" : "false");
  Rec *r = rtf_test_rec_start (pattern, props, CAPS);
  gchar *out = NULL;
  guint i;

  for (i = 0; i < 10; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  push_eos (r);
  assert_rotated (r, pattern, 0, 10, 3);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  fail_unless_equals_uint64 (rtf_test_rec_u64 (r, "frames-written"), 10);
  rtf_test_rec_stop (r);
  /* the set, its indexes and checksums agree */
  fail_unless_equals_int (run_tool ("rtframe-verify", pattern, NULL, &out), 0);
  fail_unless (strstr (out, "4 files, 10 frames") != NULL);
  g_free (out);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_rotation_by_duration)
{
  gchar *pattern = rtf_test_tmp_path ("dur-%d.raw");
  Rec *r = rtf_test_rec_start (pattern, "max-file-duration=250000000", CAPS);
  guint i;

  /* 50 ms a frame: 5 frames a file */
  for (i = 0; i < 12; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  push_eos (r);
  assert_rotated (r, pattern, 0, 12, 5);
  rtf_test_rec_stop (r);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_max_files_start_index)
{
  gchar *pattern = rtf_test_tmp_path ("keep-%03d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%d max-files=2 "
      "start-index=7", FRAME);
  Rec *r = rtf_test_rec_start (pattern, props, CAPS);
  guint i;

  for (i = 0; i < 6; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  /* files 7..12 were written, one frame each; 11 and 12 are kept */
  for (i = 7; i <= 12; i++) {
    gchar *path = file_of (pattern, i), *idx = rtf_index_path (path);

    if (i < 11) {
      fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "%s kept", path);
      fail_if (g_file_test (idx, G_FILE_TEST_EXISTS), "%s kept", idx);
    } else {
      assert_frames (path, FRAME, i - 7, 1);
      fail_unless (g_file_test (idx, G_FILE_TEST_EXISTS));
    }
    g_free (path);
    g_free (idx);
  }
  rtf_test_rec_stop (r);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_split_now)
{
  gchar *pattern = rtf_test_tmp_path ("split-%d.raw");
  gchar *path;
  Rec *r = rtf_test_rec_start (pattern, NULL, CAPS);
  guint i;

  for (i = 0; i < 4; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  g_signal_emit_by_name (r->h->element, "split-now");
  for (; i < 7; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  push_eos (r);
  path = file_of (pattern, 0);
  assert_frames (path, FRAME, 0, 4);
  g_free (path);
  path = file_of (pattern, 1);
  assert_frames (path, FRAME, 4, 3);
  g_free (path);
  rtf_test_rec_stop (r);
  g_free (pattern);
}

GST_END_TEST;

static RtfIndex *
load_index (const gchar * path)
{
  gchar *ipath = rtf_index_path (path);
  GError *error = NULL;
  RtfIndex *idx = rtf_index_load (ipath, &error);

  fail_unless (idx != NULL, "%s", error ? error->message : "");
  fail_unless (idx->damage == NULL, "%s", idx->damage);
  g_free (ipath);
  return idx;
}

/* Frames of another size start a new file, whose index has the new caps */
GST_START_TEST (test_caps_change_new_file)
{
  gchar *pattern = rtf_test_tmp_path ("caps-%d.raw");
  gchar *a = file_of (pattern, 0), *b = file_of (pattern, 1);
  Rec *r = rtf_test_rec_start (pattern, NULL, CAPS);
  guint8 want[FRAME_B];
  RtfIndex *idx;
  gchar *data = NULL;
  gsize len = 0;
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  gst_harness_set_src_caps_str (r->h, CAPS_B);
  for (i = 0; i < 2; i++) {
    GstBuffer *buf = gst_harness_create_buffer (r->h, FRAME_B);
    GstMapInfo map;

    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    rtf_test_fill_frame (map.data, FRAME_B, 1, i);
    gst_buffer_unmap (buf, &map);
    fail_unless_equals_int (gst_harness_push (r->h, buf), GST_FLOW_OK);
  }
  push_eos (r);
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  assert_frames (a, FRAME, 0, 3);
  fail_unless (g_file_get_contents (b, &data, &len, NULL));
  fail_unless_equals_uint64 (len, 2 * FRAME_B);
  for (i = 0; i < 2; i++) {
    rtf_test_fill_frame (want, FRAME_B, 1, i);
    fail_unless (memcmp (want, data + i * FRAME_B, FRAME_B) == 0);
  }
  g_free (data);
  idx = load_index (a);
  fail_unless_equals_uint64 (idx->header.frame_size, FRAME);
  fail_unless (strstr (idx->header.format, "width=(int)64") != NULL);
  rtf_index_free (idx);
  idx = load_index (b);
  fail_unless_equals_uint64 (idx->header.frame_size, FRAME_B);
  fail_unless (strstr (idx->header.format, "width=(int)32") != NULL);
  fail_unless_equals_uint64 (idx->n_records, 2);
  fail_unless_equals_uint64 (idx->records[0].seq, 3);
  rtf_index_free (idx);
  rtf_test_rec_stop (r);
  g_free (a);
  g_free (b);
  g_free (pattern);
}

GST_END_TEST;

/* Every record against what was pushed */
GST_START_TEST (test_index_contents)
{
  gchar *path = rtf_test_tmp_path ("indexed.raw");
  Rec *r = rtf_test_rec_start (path, "checksums=true deadline=1000", CAPS);
  guint8 want[FRAME];
  RtfIndex *idx;
  guint i;

  for (i = 0; i < 8; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  push_eos (r);
  rtf_test_rec_stop (r);

  idx = load_index (path);
  fail_unless_equals_int (idx->header.version, RTF_INDEX_VERSION);
  fail_unless_equals_uint64 (idx->header.frame_size, FRAME);
  fail_unless_equals_uint64 (idx->header.deadline_ns, 1000);
  fail_unless (idx->header.flags & RTF_INDEX_HAS_CHECKSUMS);
  fail_unless (g_str_has_prefix (idx->header.format, "video/x-raw"));
  fail_unless (strstr (idx->header.format, "GRAY10_LE32") != NULL);
  fail_unless_equals_uint64 (idx->n_records, 8);
  for (i = 0; i < 8; i++) {
    const RtfIndexRecord *rec = &idx->records[i];

    rtf_test_fill_frame (want, FRAME, 0, i);
    fail_unless_equals_uint64 (rec->seq, i);
    fail_unless_equals_uint64 (rec->pts, PTS (i));
    fail_unless_equals_uint64 (rec->duration, RTF_INDEX_NONE);
    fail_unless_equals_uint64 (rec->running_time, PTS (i));
    fail_unless_equals_uint64 (rec->offset, (guint64) i * FRAME);
    fail_unless_equals_int (rec->size, FRAME);
    fail_unless_equals_int (rec->checksum, rtf_crc32c (0, want, FRAME));
    fail_unless (rec->flags & RTF_INDEX_REC_CHECKSUM);
    /* a 1 us deadline: every frame is written after it */
    fail_unless (rec->flags & RTF_INDEX_REC_MISSED);
    fail_unless (rec->arrival_ns > 0 && rec->complete_ns >= rec->arrival_ns);
    if (i > 0)
      fail_unless (rec->arrival_ns >= idx->records[i - 1].arrival_ns);
  }
  rtf_index_free (idx);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_no_index)
{
  gchar *path = rtf_test_tmp_path ("plain.raw"), *ipath = rtf_index_path (path);
  Rec *r;

  /* an index of an earlier recording to the same name goes with it */
  fail_unless (g_file_set_contents (ipath, "RTFINDEX stale", -1, NULL));
  r = rtf_test_rec_start (path, "index=false", CAPS);

  fail_unless_equals_int (rtf_test_rec_push (r, 0, 0), GST_FLOW_OK);
  push_eos (r);
  rtf_test_rec_stop (r);
  assert_frames (path, FRAME, 0, 1);
  fail_if (g_file_test (ipath, G_FILE_TEST_EXISTS));
  g_free (ipath);
  g_free (path);
}

GST_END_TEST;

static guint64
stat_field (Rec * r, const gchar * field)
{
  GstStructure *s = NULL;
  guint64 v = G_MAXUINT64;

  g_object_get (r->h->element, "stats", &s, NULL);
  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s", field);
  gst_structure_free (s);
  return v;
}

/* Waits until stats field reaches at least `want` (10 s at most) */
static guint64
wait_stat (Rec * r, const gchar * field, guint64 want)
{
  guint64 v = 0;
  guint i;

  for (i = 0; i < 1000 * rtf_test_time_scale (); i++) {
    if ((v = stat_field (r, field)) >= want)
      break;
    g_usleep (10 * 1000);
  }
  return v;
}

/* sync-interval: the frames written become durable without an EOS;
 * without it only EOS makes them so */
GST_START_TEST (test_sync_interval)
{
  gchar *path = rtf_test_tmp_path ("synced.raw");
  Rec *r = rtf_test_rec_start (path, "sync-interval=1", CAPS);
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless_equals_uint64 (wait_stat (r, "frames-durable", 5), 5);
  fail_unless (stat_field (r, "syncs") >= 1);
  fail_unless (stat_field (r, "sync-max") > 0);
  rtf_test_rec_stop (r);
  g_free (path);

  path = rtf_test_tmp_path ("unsynced.raw");
  r = rtf_test_rec_start (path, "sync-interval=0", CAPS);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless_equals_uint64 (wait_stat (r, "frames-written", 5), 5);
  g_usleep (100 * 1000);
  fail_unless_equals_uint64 (stat_field (r, "frames-durable"), 0);
  fail_unless_equals_uint64 (stat_field (r, "syncs"), 0);
  push_eos (r);
  fail_unless_equals_uint64 (stat_field (r, "frames-durable"), 5);
  rtf_test_rec_stop (r);
  assert_frames (path, FRAME, 0, 5);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_bad_pattern)
{
  const gchar *bad[][2] = {
    {"bad-%s.raw", NULL},
    {"bad-%d-%d.raw", NULL},
    {"plain.raw", "max-file-size=1000000"},
    {"plain.raw", "max-files=3"},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    gchar *loc = rtf_test_tmp_path (bad[i][0]);

    rtf_test_assert_start_fails ("rtframesink", loc, bad[i][1],
        GST_RESOURCE_ERROR_SETTINGS, loc);
    g_free (loc);
  }
}

GST_END_TEST;

/* ---- rtframesrc ------------------------------------------------------ */

/* The rtframe:// URI of a location: its file:// URI with our scheme */
static gchar *
gst_rtframe_test_uri (const gchar * location)
{
  gchar *file_uri = gst_filename_to_uri (location, NULL);
  gchar *uri = g_strconcat ("rtframe", file_uri + strlen ("file"), NULL);

  g_free (file_uri);
  return uri;
}

static gchar *
record_set (const gchar * name, guint frames, guint per_file)
{
  gchar *pattern = rtf_test_tmp_path (name);
  gchar *props = g_strdup_printf ("max-file-size=%u checksums=true",
      per_file * FRAME);

  rtf_test_record (pattern, props, CAPS, frames);
  g_free (props);
  return pattern;
}

static void
assert_sample_is_frame (GstSample * sample, guint64 n)
{
  GstBuffer *buf = gst_sample_get_buffer (sample);
  guint8 want[FRAME];

  fail_unless (sample != NULL);
  rtf_test_fill_frame (want, FRAME, 0, n);
  fail_unless_equals_uint64 (gst_buffer_get_size (buf), FRAME);
  fail_unless (gst_buffer_memcmp (buf, 0, want, FRAME) == 0,
      "not frame %" G_GUINT64_FORMAT " (offset %" G_GUINT64_FORMAT ")", n,
      GST_BUFFER_OFFSET (buf));
  fail_unless_equals_uint64 (GST_BUFFER_PTS (buf), PTS (n));
  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), n);
}

static GstElement *
src_pipeline (const gchar * pattern, GstElement ** sink)
{
  gchar *desc = g_strdup_printf ("rtframesrc location=\"%s\" ! appsink "
      "name=s sync=false", pattern);
  GstElement *p = gst_parse_launch (desc, NULL);

  fail_unless (p != NULL);
  *sink = gst_bin_get_by_name (GST_BIN (p), "s");
  g_free (desc);
  return p;
}

/* A set of 5 files played as one stream, byte-exact, with its caps and
 * timestamps; then seeks to random frames, by frame number and by time,
 * each landing on that frame exactly */
GST_START_TEST (test_src_round_trip_and_seeks)
{
  gchar *pattern = record_set ("play-%03d.raw", 31, 7);
  GstElement *pipe, *sink;
  GstSample *sample;
  GstCaps *want_caps = gst_caps_from_string (CAPS);
  GRand *rand = g_rand_new_with_seed (42);
  gint64 dur = 0;
  guint64 n = 0;
  guint i;

  pipe = src_pipeline (pattern, &sink);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstCaps *caps = gst_sample_get_caps (sample);

    fail_unless (gst_caps_is_subset (caps, want_caps), "caps %"
        GST_PTR_FORMAT, caps);
    assert_sample_is_frame (sample, n);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_uint64 (n, 31);
  fail_unless (gst_element_query_duration (pipe, GST_FORMAT_DEFAULT, &dur));
  fail_unless_equals_int64 (dur, 31);
  gst_element_set_state (pipe, GST_STATE_NULL);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  for (i = 0; i < 12; i++) {
    guint64 k = g_rand_int_range (rand, 0, 31);
    gboolean by_frame = i % 2 == 0;

    if (by_frame)
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_DEFAULT,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, k));
    else                        /* 20 ms into frame k: frame k is shown */
      fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
              GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
              PTS (k) + 20 * GST_MSECOND));
    sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
    assert_sample_is_frame (sample, k);
    gst_sample_unref (sample);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  gst_caps_unref (want_caps);
  g_rand_free (rand);
  g_free (pattern);
}

GST_END_TEST;

/* After max-files deleted a set's first files, rtframesrc numbers the
 * frames it plays as the recording does (the index, rtframe-dump, the
 * bus): buffer offsets, seeks, position and duration in GST_FORMAT_DEFAULT
 * are the recording's frame numbers (issue 26: the kept frames 70-99
 * played as 0-29, and a seek to frame 70 failed) */
GST_START_TEST (test_src_frame_numbers_after_max_files)
{
  gchar *pattern = rtf_test_tmp_path ("num-%03d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u max-files=3", 10 * FRAME);
  static const guint64 seeks[] = { 85, 70, 99, 0, 77 };
  GstElement *pipe, *sink;
  GstSample *sample;
  gint64 v = 0;
  guint64 n = 70;
  guint i;

  rtf_test_record (pattern, props, CAPS, 100);
  pipe = src_pipeline (pattern, &sink);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    assert_sample_is_frame (sample, n);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_uint64 (n, 100);
  gst_element_set_state (pipe, GST_STATE_NULL);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (pipe, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_query_duration (pipe, GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 100);
  fail_unless (gst_element_query_position (pipe, GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 71);     /* (the preroll frame, 70, taken) */
  for (i = 0; i < G_N_ELEMENTS (seeks); i++) {
    fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_DEFAULT,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, seeks[i]));
    sample = gst_app_sink_pull_preroll (GST_APP_SINK (sink));
    /* a number below the first kept shows the first */
    assert_sample_is_frame (sample, MAX (seeks[i], 70));
    gst_sample_unref (sample);
  }
  fail_unless (gst_element_query_convert (pipe, GST_FORMAT_DEFAULT, 80,
          GST_FORMAT_TIME, &v));
  fail_unless_equals_int64 (v, PTS (80));
  fail_unless (gst_element_query_convert (pipe, GST_FORMAT_TIME, PTS (91) +
          GST_MSECOND, GST_FORMAT_DEFAULT, &v));
  fail_unless_equals_int64 (v, 91);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

/* URIs (issue 26): both elements take file:// and rtframe://, the scheme
 * that makes gst_element_make_from_uri() and playbin pick them; playbin
 * plays a rotated set by its rtframe:// URI, every frame with the
 * recording's frame number */
static void
count_handoff (GstElement * fakesink, GstBuffer * buf, GstPad * pad,
    gpointer data)
{
  guint64 *next = data;

  fail_unless_equals_uint64 (GST_BUFFER_OFFSET (buf), *next);
  (*next)++;
}

GST_START_TEST (test_uri_handlers_and_playbin)
{
  gchar *pattern = rtf_test_tmp_path ("uri-%03d.raw");
  gchar *props = g_strdup_printf ("max-file-size=%u max-files=2", 10 * FRAME);
  gchar *uri, *file_uri, *back = NULL, *loc = NULL;
  GstElement *e, *playbin, *fakesink;
  GError *err = NULL;
  GstMessage *msg;
  GstBus *bus;
  guint64 next = 20;

  rtf_test_record (pattern, props, CAPS, 40);
  uri = gst_rtframe_test_uri (pattern);
  fail_unless (strstr (uri, "uri-%2503d.raw") != NULL, "%s", uri);

  /* rtframe:// picks our elements, and their URI round-trips */
  e = gst_element_make_from_uri (GST_URI_SRC, uri, NULL, &err);
  fail_unless (e != NULL, "%s", err ? err->message : "");
  fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory (e)),
      "rtframesrc");
  g_object_get (e, "location", &loc, NULL);
  fail_unless_equals_string (loc, pattern);
  back = gst_uri_handler_get_uri (GST_URI_HANDLER (e));
  fail_unless_equals_string (back, uri);
  g_free (back);
  g_free (loc);
  /* file:// is taken as filesrc takes it ... */
  file_uri = gst_filename_to_uri (pattern, NULL);
  fail_unless (gst_uri_handler_set_uri (GST_URI_HANDLER (e), file_uri, &err));
  /* ... nothing else: another scheme, a host, a relative path */
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e), "http://a/b.raw",
          &err));
  fail_unless (g_error_matches (err, GST_URI_ERROR,
          GST_URI_ERROR_UNSUPPORTED_PROTOCOL), "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e),
          "rtframe://elsewhere/b.raw", &err));
  fail_unless (g_error_matches (err, GST_URI_ERROR, GST_URI_ERROR_BAD_URI),
      "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (e), "rtframe:b.raw",
          &err));
  g_clear_error (&err);
  gst_object_unref (e);
  e = gst_element_make_from_uri (GST_URI_SINK, uri, NULL, &err);
  fail_unless (e != NULL, "%s", err ? err->message : "");
  fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory (e)),
      "rtframesink");
  g_object_get (e, "location", &loc, NULL);
  fail_unless_equals_string (loc, pattern);
  g_free (loc);
  gst_object_unref (e);

  /* started, the URI is the one it started with */
  e = src_pipeline (pattern, &fakesink);
  fail_unless (gst_element_set_state (e, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (e, NULL, NULL, 5 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  {
    GstIterator *it = gst_bin_iterate_sources (GST_BIN (e));
    GValue v = G_VALUE_INIT;
    GstElement *src;

    fail_unless (gst_iterator_next (it, &v) == GST_ITERATOR_OK);
    src = g_value_dup_object (&v);
    g_value_unset (&v);
    gst_iterator_free (it);
    fail_if (gst_uri_handler_set_uri (GST_URI_HANDLER (src), file_uri, &err));
    fail_unless (g_error_matches (err, GST_URI_ERROR,
            GST_URI_ERROR_BAD_STATE), "%s", err->message);
    g_clear_error (&err);
    gst_object_unref (src);
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_object_unref (fakesink);
  gst_object_unref (e);

  /* playbin, by the URI: the 20 frames max-files kept, numbered 20-39 */
  playbin = gst_element_factory_make ("playbin", NULL);
  fakesink = gst_element_factory_make ("fakesink", NULL);
  fail_unless (playbin != NULL && fakesink != NULL);
  g_object_set (fakesink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
  g_signal_connect (fakesink, "handoff", G_CALLBACK (count_handoff), &next);
  g_object_set (playbin, "uri", uri, "video-sink", fakesink, NULL);
  fail_unless (gst_element_set_state (playbin, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  bus = gst_element_get_bus (playbin);
  msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  fail_unless_equals_uint64 (next, 40);
  gst_element_set_state (playbin, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (playbin);
  g_free (file_uri);
  g_free (uri);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_src_errors)
{
  gchar *missing = rtf_test_tmp_path ("nothing-%d.raw");
  gchar *noindex = rtf_test_tmp_path ("noindex.raw");
  const gchar *locations[] = { missing, noindex };
  guint i;

  fail_unless (g_file_set_contents (noindex, "xxxx", 4, NULL));
  for (i = 0; i < G_N_ELEMENTS (locations); i++)
    rtf_test_assert_start_fails ("rtframesrc", locations[i], NULL,
        GST_RESOURCE_ERROR_OPEN_READ, locations[i]);
  g_free (missing);
  g_free (noindex);
}

GST_END_TEST;

/* ---- tools ----------------------------------------------------------- */

static gint
run_tool (const gchar * tool, const gchar * arg1, const gchar * arg2,
    gchar ** out)
{
  return rtf_test_run_tool (out, tool, arg1, arg2, NULL);
}

static void
flip_byte (const gchar * path, guint64 at)
{
  FILE *f = fopen (path, "r+b");
  gint c;

  fail_unless (f != NULL);
  fseek (f, (long) at, SEEK_SET);
  c = fgetc (f);
  fseek (f, (long) at, SEEK_SET);
  fputc (c ^ 0x40, f);
  fclose (f);
}

GST_START_TEST (test_verify_catches_faults)
{
  gchar *pattern = record_set ("verify-%d.raw", 20, 6);
  gchar *file1 = file_of (pattern, 1), *last = file_of (pattern, 3);
  gchar *out = NULL;

  fail_unless_equals_int (run_tool ("rtframe-verify", pattern, NULL, &out), 0);
  fail_unless (strstr (out, "4 files, 20 frames") != NULL);
  g_free (out);

  /* one bit of frame 8 (file 1, its third frame) */
  flip_byte (file1, 2 * FRAME + 100);
  fail_unless_equals_int (run_tool ("rtframe-verify", pattern, NULL, &out), 1);
  fail_unless (strstr (out, "frame 8") != NULL && strstr (out, "corrupt"));
  g_free (out);
  flip_byte (file1, 2 * FRAME + 100);

  /* the last file loses its last 10 bytes */
  fail_unless (truncate (last, 2 * FRAME - 10) == 0);
  fail_unless_equals_int (run_tool ("rtframe-verify", pattern, NULL, &out), 1);
  fail_unless (strstr (out, "frame 19") && strstr (out, "cut short"));
  g_free (out);

  /* recover cuts it back to frame 18: whole again */
  fail_unless_equals_int (run_tool ("rtframe-recover", pattern, NULL, &out), 0);
  g_free (out);
  fail_unless_equals_int (run_tool ("rtframe-verify", pattern, NULL, &out), 0);
  fail_unless (strstr (out, "4 files, 19 frames") != NULL);
  g_free (out);
  assert_frames (last, FRAME, 18, 1);

  g_free (file1);
  g_free (last);
  g_free (pattern);
}

GST_END_TEST;

static Suite *
recording_suite (void)
{
  Suite *s = suite_create ("recording");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  tcase_add_loop_test (tc, test_rotation_by_size, 0, 2);
  tcase_add_test (tc, test_rotation_by_duration);
  tcase_add_test (tc, test_max_files_start_index);
  tcase_add_test (tc, test_split_now);
  tcase_add_test (tc, test_caps_change_new_file);
  tcase_add_test (tc, test_index_contents);
  tcase_add_test (tc, test_no_index);
  tcase_add_test (tc, test_sync_interval);
  tcase_add_test (tc, test_bad_pattern);
  tcase_add_test (tc, test_src_round_trip_and_seeks);
  tcase_add_test (tc, test_src_frame_numbers_after_max_files);
  tcase_add_test (tc, test_uri_handlers_and_playbin);
  tcase_add_test (tc, test_src_errors);
  tcase_add_test (tc, test_verify_catches_faults);
  return s;
}

GST_CHECK_MAIN (recording);
