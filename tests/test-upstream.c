/* gst-check tests of what upstream says of each frame (issue 15): frames
 * lost before the sink - a frame counter in the buffer offset that skips,
 * DISCONT, a timestamp jump - reported as rtframesink-upstream-gap, counted
 * in the stats and flagged in the index; camera timestamps
 * (GstReferenceTimestampMeta) kept in the index; and every reader of a
 * recording telling them back: rtframe-verify, rtframe-dump's CSV,
 * rtframesrc (DISCONT, the meta).  appsrc plays the camera; the files are
 * real, in $TMPDIR; recordings of index versions 1 and 2 still read. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>

#include <glib/gstdio.h>
#include <string.h>

#include "rtf-index.h"
#include "rtf-test-index.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"
#include "rtf-upstream-gap.h"

/* 64x16 GRAY10_LE32: 1408 bytes a frame; 20 fps: 50 ms a frame */
#define CAPS "video/x-raw,format=GRAY10_LE32,width=64,height=16,framerate=20/1"
#define FRAME 1408
#define MS GST_MSECOND
#define NONE G_MAXUINT64

/* A buffer as upstream sends it */
typedef struct
{
  guint64 offset;               /* NONE: not set; offset_end = offset + 1 */
  GstClockTime pts;
  gboolean discont;
  /* GstReferenceTimestampMeta, in this order: caps text and timestamp
   * (NULL: none) */
  const gchar *ref_caps[2];
  guint64 ref_ts[2];
} Upstream;

typedef struct
{
  GPtrArray *gaps;              /* rtframesink-upstream-gap structures */
  GstStructure *stats;          /* at EOS */
} Recorded;

static void
recorded_clear (Recorded * r)
{
  g_ptr_array_unref (r->gaps);
  gst_structure_free (r->stats);
}

static GstBuffer *
make_buffer (guint64 seq, const Upstream * u)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, FRAME, NULL);
  GstMapInfo map;
  guint k;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  rtf_test_fill_frame (map.data, FRAME, 0, seq);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = u->pts;
  GST_BUFFER_DURATION (buf) = 50 * MS;
  GST_BUFFER_OFFSET (buf) = u->offset;
  GST_BUFFER_OFFSET_END (buf) = u->offset == NONE ? NONE : u->offset + 1;
  if (u->discont)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  for (k = 0; k < 2 && u->ref_caps[k]; k++) {
    GstCaps *c = gst_caps_from_string (u->ref_caps[k]);

    fail_unless (gst_buffer_add_reference_timestamp_meta (buf, c,
            u->ref_ts[k], GST_CLOCK_TIME_NONE) != NULL);
    gst_caps_unref (c);
  }
  return buf;
}

/* appsrc ! rtframesink location=path props: pushes the n buffers, then
 * EOS; what the sink posted on the way, and its stats at EOS */
static void
record (const gchar * path, const gchar * props, const Upstream * ups,
    guint n, Recorded * out)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! "
      "rtframesink name=sink location=\"%s\" %s", CAPS, path,
      props ? props : "");
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src, *sink;
  GstBus *bus;
  gboolean eos = FALSE;
  guint i;

  fail_unless (pipe != NULL);
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  out->gaps = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            make_buffer (i, &ups[i])), GST_FLOW_OK);
  fail_unless_equals_int (gst_app_src_end_of_stream (GST_APP_SRC (src)),
      GST_FLOW_OK);
  while (!eos) {
    GstMessage *msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT);
    const GstStructure *s;

    fail_unless (msg != NULL, "no EOS within 30 s");
    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR, "an error");
    eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    s = gst_message_get_structure (msg);
    if (s && gst_structure_has_name (s, "rtframesink-upstream-gap"))
      g_ptr_array_add (out->gaps, gst_structure_copy (s));
    gst_message_unref (msg);
  }
  g_object_get (sink, "stats", &out->stats, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
}

static guint64
u64_of (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static RtfIndex *
load_index (const gchar * path)
{
  gchar *ipath = rtf_index_path (path);
  GError *error = NULL;
  RtfIndex *idx = rtf_index_load (ipath, &error);

  fail_unless (idx != NULL, "%s", error ? error->message : "");
  g_free (ipath);
  return idx;
}

/* rtframesrc ! appsink: every buffer of the recording at path */
static GPtrArray *
play_back (const gchar * path)
{
  gchar *desc = g_strdup_printf ("rtframesrc location=\"%s\" ! "
      "appsink name=out sync=false", path);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GPtrArray *bufs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  GstSample *sample;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (out))) != NULL) {
    g_ptr_array_add (bufs, gst_buffer_ref (gst_sample_get_buffer (sample)));
    gst_sample_unref (sample);
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (out)));
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (out);
  gst_object_unref (pipe);
  g_free (desc);
  return bufs;
}

/* rtframe-dump's CSV: its lines split into fields, the header first */
static GPtrArray *
dump (const gchar * path)
{
  gchar *out = NULL, **lines;
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_strfreev);
  guint i;

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-dump", path,
          NULL), 0);
  lines = g_strsplit (out, "\n", -1);
  for (i = 0; lines[i] && lines[i][0]; i++)
    g_ptr_array_add (rows, g_strsplit (lines[i], ",", -1));
  fail_unless (lines[i] != NULL && lines[i + 1] == NULL, "text after the "
      "last line");
  g_strfreev (lines);
  g_free (out);
  return rows;
}

/* Field `name` of CSV row `row` (the header names them) */
static const gchar *
csv (GPtrArray * rows, guint row, const gchar * name)
{
  gchar **head = g_ptr_array_index (rows, 0), **r;
  guint k;

  fail_unless (row + 1 < rows->len);
  r = g_ptr_array_index (rows, row + 1);
  for (k = 0; head[k]; k++)
    if (g_str_equal (head[k], name)) {
      fail_unless_equals_int (g_strv_length (r), g_strv_length (head));
      return r[k];
    }
  fail ("no column %s", name);
  return NULL;
}

/* The stream of the issue: a counter that skips, a DISCONT, then no
 * counter and a timestamp jump, a counter again */
static const Upstream stream[] = {
  {100, 0 * MS},                /* 0: the source's first (DISCONT: appsrc) */
  {101, 50 * MS},               /* 1 */
  {104, 200 * MS},              /* 2: 102, 103 lost: the counter says so */
  {105, 250 * MS, TRUE},        /* 3: DISCONT, the counter says nothing */
  {NONE, 300 * MS},             /* 4: no counter from here */
  {NONE, 450 * MS},             /* 5: 350, 400 lost: 3 frame durations */
  {NONE, 500 * MS},             /* 6 */
  {200, 550 * MS},              /* 7: a counter again: nothing to compare */
  {201, 600 * MS},              /* 8 */
};

#define N_STREAM G_N_ELEMENTS (stream)

/* One message each, as they come, with what the gap was */
static void
assert_gap_message (const GstStructure * s, guint64 frame, guint64 offset,
    guint64 missing, guint64 first_offset, guint64 first_pts, const gchar * how)
{
  gint64 arrival = 0;

  fail_unless_equals_uint64 (u64_of (s, "frame"), frame);
  fail_unless_equals_uint64 (u64_of (s, "pts"), stream[frame].pts);
  fail_unless_equals_uint64 (u64_of (s, "offset"), offset);
  fail_unless_equals_uint64 (u64_of (s, "missing"), missing);
  fail_unless_equals_uint64 (u64_of (s, "first-missing-offset"), first_offset);
  fail_unless_equals_uint64 (u64_of (s, "first-missing-pts"), first_pts);
  fail_unless_equals_string (gst_structure_get_string (s, "detected-by"), how);
  arrival = u64_of (s, "arrival");
  fail_unless (arrival > 0);
  fail_unless_equals_uint64 (u64_of (s, "size"), FRAME);
}

GST_START_TEST (test_gaps_reported)
{
  gchar *path = rtf_test_tmp_path ("gaps.raw");
  Recorded rec;
  RtfIndex *idx;
  guint i;

  record (path, "checksums=true", stream, N_STREAM, &rec);

  /* the messages */
  fail_unless_equals_int (rec.gaps->len, 3);
  assert_gap_message (g_ptr_array_index (rec.gaps, 0), 2, 104, 2, 102,
      100 * MS, "offset");
  assert_gap_message (g_ptr_array_index (rec.gaps, 1), 3, 105, 0, NONE, NONE,
      "discont");
  assert_gap_message (g_ptr_array_index (rec.gaps, 2), 5, NONE, 2, NONE,
      350 * MS, "timestamp");
  /* the counters */
  fail_unless_equals_uint64 (u64_of (rec.stats, "upstream-gaps"), 3);
  fail_unless_equals_uint64 (u64_of (rec.stats, "frames-missing-upstream"), 4);
  fail_unless_equals_uint64 (u64_of (rec.stats, "frames-written"), N_STREAM);
  recorded_clear (&rec);

  /* the index: every frame, its offset, the gaps on the frames after */
  idx = load_index (path);
  fail_unless_equals_int (idx->header.version, 3);
  fail_unless_equals_int (idx->header.record_size, 96);
  fail_unless (idx->header.reference == NULL);
  fail_unless_equals_uint64 (idx->n_records, N_STREAM);
  for (i = 0; i < N_STREAM; i++) {
    const RtfIndexRecord *r = &idx->records[i];
    gboolean gap = i == 2 || i == 3 || i == 5;

    fail_unless_equals_uint64 (r->seq, i);
    fail_unless_equals_uint64 (r->pts, stream[i].pts);
    fail_unless_equals_uint64 (r->upstream_offset, stream[i].offset);
    fail_unless_equals_uint64 (r->reference_ns, NONE);
    fail_unless_equals_int (!!(r->flags & RTF_INDEX_REC_GAP), gap);
    fail_unless_equals_int (r->gap_missing, i == 3 ? 0 : gap ? 2 : 0);
    fail_unless_equals_int (r->gap_how, i == 2 ? RTF_GAP_OFFSET : i == 3 ?
        RTF_GAP_DISCONT : i == 5 ? RTF_GAP_TIMESTAMP : 0);
  }
  rtf_index_free (idx);
  g_free (path);
}

GST_END_TEST;

/* rtframe-verify lists the gaps and counts them, no fault of the
 * recording; rtframe-dump writes one CSV line a frame; rtframesrc marks
 * the frame after each gap DISCONT */
GST_START_TEST (test_gaps_read_back)
{
  gchar *path = rtf_test_tmp_path ("gaps.raw"), *out = NULL;
  GPtrArray *rows, *bufs;
  Recorded rec;
  guint i;
  gint64 started = g_get_real_time () * 1000;
  GstCaps *unix_caps;
  GstClockTime last_wall = 0;

  record (path, "checksums=true", stream, N_STREAM, &rec);
  recorded_clear (&rec);

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", path,
          NULL), 0);
  fail_unless (strstr (out, "UPSTREAM GAP") != NULL);
  fail_unless (strstr (out, ": 2 frames lost before frame 2 (detected by "
          "offset; its offset 104, pts 0.200000000 s)") != NULL);
  fail_unless (strstr (out, ": frames lost before frame 3, how many not "
          "known (detected by discont; its offset 105") != NULL);
  fail_unless (strstr (out, ": 2 frames lost before frame 5 (detected by "
          "timestamp; pts 0.450000000 s)") != NULL);
  fail_unless (strstr (out, "upstream: 3 gaps, 4 frames lost before the "
          "recorder") != NULL);
  fail_unless (strstr (out, "\nOK\n") != NULL);
  g_free (out);
  /* --quiet: faults only, and these are none */
  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", "-q",
          path, NULL), 0);
  fail_unless_equals_string (out, "");
  g_free (out);

  rows = dump (path);
  fail_unless_equals_int (rows->len, N_STREAM + 1);
  out = g_strjoinv (",", g_ptr_array_index (rows, 0));
  fail_unless_equals_string (out, "frame,file,pts,duration,running_time,"
      "camera_timestamp,upstream_offset,arrival,written,latency,byte_offset,"
      "size,flags,missed,copied,gap,gap_missing,gap_detected_by,prerecorded,"
      "event_start,location,wall_clock");
  g_free (out);
  for (i = 0; i < N_STREAM; i++) {
    gboolean gap = i == 2 || i == 3 || i == 5;
    gchar *want;
    gint64 arrival, written, latency;

    want = g_strdup_printf ("%u", i);
    fail_unless_equals_string (csv (rows, i, "frame"), want);
    g_free (want);
    want = g_strdup_printf ("%" G_GUINT64_FORMAT, stream[i].pts);
    fail_unless_equals_string (csv (rows, i, "pts"), want);
    g_free (want);
    fail_unless_equals_string (csv (rows, i, "duration"), "50000000");
    want = stream[i].offset == NONE ? g_strdup ("") :
        g_strdup_printf ("%" G_GUINT64_FORMAT, stream[i].offset);
    fail_unless_equals_string (csv (rows, i, "upstream_offset"), want);
    g_free (want);
    fail_unless_equals_string (csv (rows, i, "camera_timestamp"), "");
    want = g_strdup_printf ("%u", i * FRAME);
    fail_unless_equals_string (csv (rows, i, "byte_offset"), want);
    g_free (want);
    fail_unless_equals_string (csv (rows, i, "size"), "1408");
    arrival = g_ascii_strtoll (csv (rows, i, "arrival"), NULL, 10);
    written = g_ascii_strtoll (csv (rows, i, "written"), NULL, 10);
    latency = g_ascii_strtoll (csv (rows, i, "latency"), NULL, 10);
    fail_unless (arrival > 0 && written >= arrival);
    fail_unless_equals_int64 (latency, written - arrival);
    fail_unless_equals_string (csv (rows, i, "gap"), gap ? "1" : "0");
    fail_unless_equals_string (csv (rows, i, "gap_missing"), i == 3 ? "0" :
        gap ? "2" : "");
    fail_unless_equals_string (csv (rows, i, "gap_detected_by"), i == 2 ?
        "offset" : i == 3 ? "discont" : i == 5 ? "timestamp" : "");
    /* flags: checksum, the gap bit, and the recording's first frame */
    fail_unless_equals_string (csv (rows, i, "prerecorded"), "0");
    fail_unless_equals_string (csv (rows, i, "event_start"), i ? "0" : "1");
    fail_unless_equals_string (csv (rows, i, "location"), "0");
    /* arrival on the wall clock: within the test's run (issue 26) */
    {
      gint64 wall = g_ascii_strtoll (csv (rows, i, "wall_clock"), NULL, 10);

      fail_unless (wall > started && wall <= g_get_real_time () * 1000,
          "wall clock %" G_GINT64_FORMAT " not in the run", wall);
    }
    want = g_strdup_printf ("%u", RTF_INDEX_REC_CHECKSUM |
        (i == 0 ? RTF_INDEX_REC_EVENT_START : 0) |
        (gap ? RTF_INDEX_REC_GAP : 0) | (g_str_equal (csv (rows, i,
                    "copied"), "1") ? RTF_INDEX_REC_COPIED : 0) |
        (g_str_equal (csv (rows, i, "missed"), "1") ? RTF_INDEX_REC_MISSED :
            0));
    fail_unless_equals_string (csv (rows, i, "flags"), want);
    g_free (want);
  }
  g_ptr_array_unref (rows);

  /* playback: the frames as recorded, DISCONT at the start and after
   * each gap */
  bufs = play_back (path);
  fail_unless_equals_int (bufs->len, N_STREAM);
  unix_caps = gst_caps_new_empty_simple ("timestamp/x-unix");
  for (i = 0; i < N_STREAM; i++) {
    GstBuffer *b = g_ptr_array_index (bufs, i);
    gboolean discont = i == 0 || i == 2 || i == 3 || i == 5;
    guint8 want[FRAME];
    GstReferenceTimestampMeta *m;
    gpointer state = NULL;
    GstMeta *any;
    guint metas = 0;

    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), stream[i].pts);
    fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
            GST_BUFFER_FLAG_DISCONT), discont);
    rtf_test_fill_frame (want, FRAME, 0, i);
    fail_unless (gst_buffer_memcmp (b, 0, want, FRAME) == 0);
    /* no camera timestamp (none was recorded); the wall clock of its
     * arrival, as timestamp/x-unix (issue 26), within the run and rising */
    while ((any = gst_buffer_iterate_meta_filtered (b, &state,
                GST_REFERENCE_TIMESTAMP_META_API_TYPE)))
      metas++;
    fail_unless_equals_int (metas, 1);
    m = gst_buffer_get_reference_timestamp_meta (b, unix_caps);
    fail_unless (m != NULL);
    fail_unless ((gint64) m->timestamp > started
        && (gint64) m->timestamp <= g_get_real_time () * 1000);
    fail_unless (m->timestamp >= last_wall);
    last_wall = m->timestamp;
  }
  gst_caps_unref (unix_caps);
  g_ptr_array_unref (bufs);
  g_free (path);
}

GST_END_TEST;

/* Camera timestamps: which GstReferenceTimestampMeta is kept (the first
 * meta's caps, or reference-timestamp-caps), the header naming them,
 * rtframe-dump's column, rtframesrc putting them back */
static const Upstream with_meta[] = {
  {0, 0, FALSE, {"timestamp/x-ntp", "timestamp/x-test-camera"}, {1000, 2000}},
  {1, 50 * MS, FALSE, {"timestamp/x-test-camera", "timestamp/x-ntp"},
      {3000, 4000}},
  {2, 100 * MS},
  {3, 150 * MS, FALSE, {"timestamp/x-test-camera"}, {5000}},
};

static void
check_reference (const gchar * props, const gchar * caps, const guint64 * want)
{
  gchar *path = rtf_test_tmp_path ("meta.raw");
  GPtrArray *rows, *bufs;
  GstCaps *ref = gst_caps_from_string (caps);
  Recorded rec;
  RtfIndex *idx;
  guint i;

  record (path, props, with_meta, G_N_ELEMENTS (with_meta), &rec);
  fail_unless_equals_int (rec.gaps->len, 0);
  fail_unless_equals_uint64 (u64_of (rec.stats, "upstream-gaps"), 0);
  recorded_clear (&rec);

  idx = load_index (path);
  fail_unless_equals_string (idx->header.reference, caps);
  fail_unless_equals_uint64 (idx->n_records, 4);
  for (i = 0; i < 4; i++) {
    fail_unless_equals_uint64 (idx->records[i].reference_ns, want[i]);
    fail_unless_equals_uint64 (idx->records[i].upstream_offset, i);
  }
  rtf_index_free (idx);

  rows = dump (path);
  for (i = 0; i < 4; i++) {
    gchar *w = want[i] == NONE ? g_strdup ("") :
        g_strdup_printf ("%" G_GUINT64_FORMAT, want[i]);

    fail_unless_equals_string (csv (rows, i, "camera_timestamp"), w);
    g_free (w);
  }
  g_ptr_array_unref (rows);

  bufs = play_back (path);
  fail_unless_equals_int (bufs->len, 4);
  for (i = 0; i < 4; i++) {
    /* (by its caps: the wall clock's meta, timestamp/x-unix, is there
     * too) */
    GstReferenceTimestampMeta *m =
        gst_buffer_get_reference_timestamp_meta (g_ptr_array_index (bufs, i),
        ref);

    if (want[i] == NONE) {
      fail_unless (m == NULL);
      continue;
    }
    fail_unless (m != NULL);
    fail_unless (gst_caps_is_equal (m->reference, ref));
    fail_unless_equals_uint64 (m->timestamp, want[i]);
  }
  g_ptr_array_unref (bufs);
  gst_caps_unref (ref);
  g_free (path);
}

GST_START_TEST (test_reference_timestamps)
{
  static const guint64 first_meta[] = { 1000, 4000, NONE, NONE };
  static const guint64 camera[] = { 2000, 3000, NONE, 5000 };

  /* unset: the first meta of the first buffer fixes the caps (x-ntp) */
  check_reference (NULL, "timestamp/x-ntp", first_meta);
  /* asked for */
  check_reference ("reference-timestamp-caps=timestamp/x-test-camera",
      "timestamp/x-test-camera", camera);
}

GST_END_TEST;

/* After a flush the stream starts afresh: its first buffer's DISCONT and
 * counter say nothing of lost frames; the counting goes on from there */
GST_START_TEST (test_flush_restarts)
{
  gchar *path = rtf_test_tmp_path ("flush.raw");
  Rec *r = rtf_test_rec_start (path, NULL, CAPS);
  static const Upstream ups[] = {
    {10, 0}, {11, 50 * MS}, {500, 900 * MS, TRUE}, {502, 1000 * MS},
  };
  GstMessage *msg;
  guint i, gaps = 0;
  RtfIndex *idx;

  for (i = 0; i < G_N_ELEMENTS (ups); i++) {
    if (i == 2) {
      GstSegment segment;

      fail_unless (gst_harness_push_event (r->h, gst_event_new_flush_start ()));
      fail_unless (gst_harness_push_event (r->h,
              gst_event_new_flush_stop (TRUE)));
      gst_segment_init (&segment, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (r->h,
              gst_event_new_segment (&segment)));
    }
    fail_unless_equals_int (gst_harness_push (r->h, make_buffer (i, &ups[i])),
        GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  while ((msg = gst_bus_pop_filtered (r->bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);

    if (gst_structure_has_name (s, "rtframesink-upstream-gap")) {
      gaps++;
      fail_unless_equals_uint64 (u64_of (s, "frame"), 3);
      fail_unless_equals_uint64 (u64_of (s, "missing"), 1);
      fail_unless_equals_uint64 (u64_of (s, "first-missing-offset"), 501);
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (gaps, 1);
  fail_unless_equals_uint64 (rtf_test_rec_u64 (r, "frames-written"), 4);
  rtf_test_rec_stop (r);
  idx = load_index (path);
  fail_unless_equals_uint64 (idx->n_records, 4);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (!!(idx->records[i].flags & RTF_INDEX_REC_GAP),
        i == 3);
  rtf_index_free (idx);
  g_free (path);
}

GST_END_TEST;

/* Recordings made before version 3 still play, verify and dump: the
 * frames as they were, no gap, no camera timestamp, empty columns */
GST_START_TEST (test_old_versions_read)
{
  guint32 version;

  for (version = 1; version <= 2; version++) {
    gchar *dir = rtf_test_tmp_path (version == 1 ? "v1" : "v2");
    /* 8x4 GRAY10_LE32 (RTF_TEST_CAPS_TEXT): 48 bytes a frame */
    RtfTestRecording t = { "old.raw", 0, 6, 48, TRUE, version, 0x5a, TRUE };
    gchar *path, *out = NULL;
    GPtrArray *rows, *bufs;
    gchar *data = NULL;
    gsize len;
    guint i;

    fail_unless (g_mkdir (dir, 0700) == 0);
    path = rtf_test_index_write (dir, &t);

    fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", path,
            NULL), 0);
    fail_unless (strstr (out, "1 file, 6 frames, 288 bytes, 6 checksums "
            "compared") != NULL);
    fail_unless (strstr (out, "UPSTREAM GAP") == NULL);
    fail_unless (strstr (out, "upstream:") == NULL);
    g_free (out);

    rows = dump (path);
    fail_unless_equals_int (rows->len, 7);
    for (i = 0; i < 6; i++) {
      fail_unless_equals_string (csv (rows, i, "upstream_offset"), "");
      fail_unless_equals_string (csv (rows, i, "camera_timestamp"), "");
      fail_unless_equals_string (csv (rows, i, "gap"), "0");
    }
    fail_unless_equals_string (csv (rows, 2, "missed"), "1");
    g_ptr_array_unref (rows);

    fail_unless (g_file_get_contents (path, &data, &len, NULL));
    fail_unless_equals_uint64 (len, 6 * 48);
    bufs = play_back (path);
    fail_unless_equals_int (bufs->len, 6);
    for (i = 0; i < 6; i++) {
      GstBuffer *b = g_ptr_array_index (bufs, i);

      fail_unless (gst_buffer_memcmp (b, 0, data + i * 48, 48) == 0);
      fail_unless_equals_int (GST_BUFFER_FLAG_IS_SET (b,
              GST_BUFFER_FLAG_DISCONT), i == 0);
      fail_unless (gst_buffer_get_reference_timestamp_meta (b, NULL) == NULL);
    }
    g_ptr_array_unref (bufs);
    g_free (data);
    g_free (path);
    g_free (dir);
  }
}

GST_END_TEST;

static Suite *
upstream_suite (void)
{
  Suite *s = suite_create ("upstream");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  tcase_add_test (tc, test_gaps_reported);
  tcase_add_test (tc, test_gaps_read_back);
  tcase_add_test (tc, test_reference_timestamps);
  tcase_add_test (tc, test_flush_restarts);
  tcase_add_test (tc, test_old_versions_read);
  return s;
}

GST_CHECK_MAIN (upstream);
