/* gst-check tests of rtframesink as an event recorder (issue 16): record,
 * start-recording / stop-recording at running times, pre-record-time and
 * pre-record-max-bytes, the rtframe-record event, files per recording,
 * messages and stats, and what reads the recordings back. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <string.h>

#include "rtf-index.h"
#include "rtf-pattern.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

/* 512x256 GRAY16: 262144 bytes, 64 blocks */
#define CAPS "video/x-raw,format=GRAY16_LE,width=512,height=256,framerate=20/1"
#define FRAME 262144
#define MS GST_MSECOND
#define PTS(n) ((n) * 50 * MS)

/* Frame seq of `stream`, in memory of its own (not the sink's pool) */
static GstBuffer *
own_frame (guint stream, guint64 seq, gsize size)
{
  guint8 *data = g_malloc (size);
  GstBuffer *buf;

  rtf_test_fill_frame (data, size, stream, seq);
  buf = gst_buffer_new_wrapped (data, size);
  GST_BUFFER_PTS (buf) = PTS (seq);
  GST_BUFFER_DURATION (buf) = 50 * MS;
  GST_BUFFER_OFFSET (buf) = seq;        /* upstream's count, into the index */
  return buf;
}

static gboolean
emit (GstElement * sink, const gchar * signal, GstClockTime rt)
{
  gboolean ok = FALSE;

  g_signal_emit_by_name (sink, signal, rt, &ok);
  return ok;
}

/* The file at `path` holds frames first..last of `stream` (numbered as
 * the sink numbered them), byte-exact; its index flags the first
 * `prerecorded` as pre-recorded and the first as a recording's start,
 * each with upstream's offset (own_frame() sets the frame's number). */
static void
assert_event_file (const gchar * path, gsize size, guint stream,
    guint64 from, guint64 last, guint64 prerecorded)
{
  gchar *ipath = rtf_index_path (path), *bytes = NULL;
  guint8 *want = g_malloc (size);
  GError *error = NULL;
  RtfIndex *idx;
  gsize len = 0;
  guint64 i, n = last - from + 1;

  fail_unless (g_file_get_contents (path, &bytes, &len, NULL), "no %s", path);
  fail_unless_equals_uint64 (len, n * size);
  idx = rtf_index_load (ipath, &error);
  fail_unless (idx != NULL, "%s: %s", ipath, error ? error->message : "");
  fail_unless_equals_uint64 (idx->n_records, n);
  for (i = 0; i < n; i++) {
    const RtfIndexRecord *r = &idx->records[i];

    rtf_test_fill_frame (want, size, stream, from + i);
    fail_unless (memcmp (want, bytes + i * size, size) == 0,
        "%s: frame %" G_GUINT64_FORMAT " is not frame %" G_GUINT64_FORMAT,
        path, i, from + i);
    fail_unless_equals_uint64 (r->seq, from + i);
    /* what upstream said of a frame is kept while it is held */
    fail_unless_equals_uint64 (r->upstream_offset, from + i);
    fail_unless_equals_int (!!(r->flags & RTF_INDEX_REC_PRERECORDED),
        i < prerecorded);
    fail_unless_equals_int (!!(r->flags & RTF_INDEX_REC_EVENT_START), i == 0);
  }
  rtf_index_free (idx);
  g_free (bytes);
  g_free (want);
  g_free (ipath);
}

static void
assert_no_file (const gchar * path)
{
  gchar *ipath = rtf_index_path (path);

  fail_if (g_file_test (path, G_FILE_TEST_EXISTS), "%s exists", path);
  fail_if (g_file_test (ipath, G_FILE_TEST_EXISTS), "%s exists", ipath);
  g_free (ipath);
}

/* The one element message `name` on the bus (drained) */
static GstStructure *
one_message (GstBus * bus, const gchar * name)
{
  GList *msgs = rtf_test_pop_element_messages (bus, name);
  GstStructure *s;

  fail_unless_equals_int (g_list_length (msgs), 1);
  s = gst_structure_copy (gst_message_get_structure (msgs->data));
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  return s;
}

static guint64
field_u64 (const GstStructure * s, const gchar * name)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, name, &v), "no %s in %"
      GST_PTR_FORMAT, name, s);
  return v;
}

static GstHarness *
event_sink (const gchar * location, const gchar * props, GstBus ** bus)
{
  GstHarness *h = rtf_test_sink_new (location, props, CAPS, bus);

  gst_harness_play (h);
  return h;
}

static void
push (GstHarness * h, guint64 seq)
{
  fail_unless_equals_int (gst_harness_push (h, own_frame (0, seq, FRAME)),
      GST_FLOW_OK);
}

/* ---- three cameras ----------------------------------------------------- */

/* Three cameras in one pipeline, started and stopped by their
 * applications at the same running times (1000 ms, 1500 ms) with 200 ms
 * of pre-record: each camera's file holds the same frame numbers - the
 * four held from 800 ms on, then the live ones up to 1450 ms - byte-exact,
 * its index marking them; each sink announces the recording. */
GST_START_TEST (test_three_cameras)
{
  GstElement *pipe, *sinks[3];
  GstAppSrc *srcs[3];
  GstBus *bus;
  GstMessage *msg;
  gchar *pattern[3], *file0[3], *file1[3];
  GString *desc = g_string_new (NULL);
  guint c, i, started = 0, stopped = 0;

  for (c = 0; c < 3; c++) {
    gchar *name = g_strdup_printf ("cam%u-%%03d.raw", c);

    pattern[c] = rtf_test_tmp_path (name);
    file0[c] = rtf_pattern_format (pattern[c], 0);
    file1[c] = rtf_pattern_format (pattern[c], 1);
    g_string_append_printf (desc, "appsrc name=src%u caps=\"%s\" format=time "
        "! rtframesink name=sink%u location=\"%s\" record=false "
        "pre-record-time=200000000 ", c, CAPS, c, pattern[c]);
    g_free (name);
  }
  pipe = gst_parse_launch (desc->str, NULL);
  fail_unless (pipe != NULL);
  bus = gst_element_get_bus (pipe);
  for (c = 0; c < 3; c++) {
    gchar *name = g_strdup_printf ("src%u", c);

    srcs[c] = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipe), name));
    g_free (name);
    name = g_strdup_printf ("sink%u", c);
    sinks[c] = gst_bin_get_by_name (GST_BIN (pipe), name);
    g_free (name);
  }
  /* the sinks are started (READY -> PAUSED) before the first frame */
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  for (c = 0; c < 3; c++) {
    gboolean record = TRUE;

    g_object_get (sinks[c], "record", &record, NULL);
    fail_if (record);
    fail_unless (emit (sinks[c], "start-recording", 1000 * MS));
    fail_unless (emit (sinks[c], "stop-recording", 1500 * MS));
    g_object_get (sinks[c], "record", &record, NULL);
    fail_unless (record);       /* asked to */
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < 40; i++)
    for (c = 0; c < 3; c++)
      fail_unless_equals_int (gst_app_src_push_buffer (srcs[c],
              own_frame (c, i, FRAME)), GST_FLOW_OK);
  for (c = 0; c < 3; c++)
    gst_app_src_end_of_stream (srcs[c]);
  while ((msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_ELEMENT))) {
    const GstStructure *s = gst_message_get_structure (msg);

    fail_if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
      gst_message_unref (msg);
      break;
    }
    if (gst_structure_has_name (s, "rtframesink-recording-started")) {
      fail_unless_equals_uint64 (field_u64 (s, "running-time"), 1000 * MS);
      fail_unless_equals_uint64 (field_u64 (s, "first-frame"), 16);
      fail_unless_equals_uint64 (field_u64 (s, "first-running-time"), 800 * MS);
      fail_unless_equals_uint64 (field_u64 (s, "prerecorded-from"), 800 * MS);
      {
        guint64 held = 0;

        /* known when the start is told, not only once handed over (a
         * guint64, as in recording-stopped: issue 26) */
        fail_unless (gst_structure_get_uint64 (s, "prerecorded-frames", &held));
        fail_unless_equals_uint64 (held, 4);
      }
      fail_unless (g_strcmp0 (gst_structure_get_string (s, "location"),
              file0[GST_MESSAGE_SRC (msg) == GST_OBJECT (sinks[0]) ? 0 :
                  GST_MESSAGE_SRC (msg) == GST_OBJECT (sinks[1]) ? 1 : 2])
          == 0);
      started++;
    } else if (gst_structure_has_name (s, "rtframesink-recording-stopped")) {
      fail_unless_equals_uint64 (field_u64 (s, "running-time"), 1500 * MS);
      fail_unless_equals_uint64 (field_u64 (s, "last-frame"), 29);
      fail_unless_equals_uint64 (field_u64 (s, "frames"), 14);
      fail_unless_equals_uint64 (field_u64 (s, "prerecorded-frames"), 4);
      fail_unless_equals_string (gst_structure_get_string (s, "reason"),
          "stop-recording");
      stopped++;
    }
    gst_message_unref (msg);
  }
  fail_unless_equals_int (started, 3);
  fail_unless_equals_int (stopped, 3);
  for (c = 0; c < 3; c++) {
    GstStructure *st = NULL;

    g_object_get (sinks[c], "stats", &st, NULL);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), 40);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 14);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-prerecorded"), 4);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-discarded"), 26);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "recordings"), 1);
    rtf_test_assert_accounting (st);
    gst_structure_free (st);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (c = 0; c < 3; c++) {
    assert_event_file (file0[c], FRAME, c, 16, 29, 4);
    assert_no_file (file1[c]);
    gst_object_unref (srcs[c]);
    gst_object_unref (sinks[c]);
    g_free (pattern[c]);
    g_free (file0[c]);
    g_free (file1[c]);
  }
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

/* ---- what is held ------------------------------------------------------ */

/* pre-record-max-bytes bounds what is held below pre-record-time: three
 * frames of the twenty a second holds, said at caps with the seconds the
 * sink holds (never a silent cut) */
GST_START_TEST (test_max_bytes_bound)
{
  gchar *pattern = rtf_test_tmp_path ("bound-%03d.raw");
  gchar *f0 = rtf_pattern_format (pattern, 0);
  gchar *props = g_strdup_printf ("record=false pre-record-time=1000000000 "
      "pre-record-max-bytes=%d", 3 * FRAME + 100);
  GstBus *bus;
  GstHarness *h = event_sink (pattern, props, &bus);
  GstStructure *st;
  guint64 i;

  for (i = 0; i < 10; i++)
    push (h, i);
  rtf_test_assert_message (bus, GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_SETTINGS, "only 0.150 s (3 of 20 frames");
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-frames"), 3);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-bytes"),
      3 * FRAME);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-discarded"), 7);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);
  fail_unless (emit (h->element, "start-recording", PTS (10)));
  for (i = 10; i < 13; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 6);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-frames"), 0);
  gst_structure_free (st);
  rtf_test_sink_free (h, bus);
  assert_event_file (f0, FRAME, 0, 7, 12, 3);
  g_free (props);
  g_free (pattern);
  g_free (f0);
}

GST_END_TEST;

/* A camera whose pool holds three buffers: twenty frames held for
 * pre-record never take them from it (each is copied into the sink's
 * memory at once), and the recording is byte-exact */
GST_START_TEST (test_small_upstream_pool)
{
  gchar *path = rtf_test_tmp_path ("pool.raw");
  GstBus *bus;
  GstHarness *h = event_sink (path, "record=false pre-record-time=1000000000",
      &bus);
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstBufferPoolAcquireParams dontwait = {.flags =
        GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT
  };
  GstStructure *st;
  guint64 i;

  gst_buffer_pool_config_set_params (config, caps, FRAME, 3, 3);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < 21; i++) {
    GstBuffer *buf = NULL;
    GstMapInfo map;

    /* never waits: the sink let go of every buffer it was given */
    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf,
            &dontwait), GST_FLOW_OK);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    rtf_test_fill_frame (map.data, FRAME, 0, i);
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = PTS (i);
    GST_BUFFER_OFFSET (buf) = i;
    if (i == 20)
      fail_unless (emit (h->element, "start-recording", GST_CLOCK_TIME_NONE));
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-copies"), 20);
  gst_structure_free (st);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  rtf_test_sink_free (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  assert_event_file (path, FRAME, 0, 0, 20, 20);
  g_free (path);
}

GST_END_TEST;

/* Frames from the pool the sink proposed are held as they are: no copy
 * (that pool grows instead) */
GST_START_TEST (test_proposed_pool_held_as_is)
{
  gchar *path = rtf_test_tmp_path ("proposed.raw");
  GstBus *bus;
  GstHarness *h = event_sink (path, "record=false pre-record-time=1000000000",
      &bus);
  GstCaps *caps = gst_caps_from_string (CAPS);
  GstQuery *query = gst_query_new_allocation (caps, TRUE);
  GstBufferPool *pool = NULL;
  GstStructure *st;
  guint64 i;

  fail_unless (gst_pad_peer_query (h->srcpad, query));
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  for (i = 0; i < 9; i++) {
    GstBuffer *buf = NULL;
    GstMapInfo map;

    fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
        GST_FLOW_OK);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    rtf_test_fill_frame (map.data, FRAME, 0, i);
    gst_buffer_unmap (buf, &map);
    GST_BUFFER_PTS (buf) = PTS (i);
    GST_BUFFER_OFFSET (buf) = i;
    if (i == 8) {
      st = rtf_test_get_stats (h);
      fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-frames"),
          8);
      fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-copies"),
          0);
      gst_structure_free (st);
      fail_unless (emit (h->element, "start-recording", GST_CLOCK_TIME_NONE));
    }
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  rtf_test_sink_free (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_caps_unref (caps);
  assert_event_file (path, FRAME, 0, 0, 8, 8);
  g_free (path);
}

GST_END_TEST;

/* ---- starts and stops -------------------------------------------------- */

/* A stop that comes while the backlog is still being written: 6.2 MB
 * frames (not a multiple of the block: every write shape), 30 held, one
 * live; the recording is the 30 and the one, whole */
GST_START_TEST (test_stop_during_backlog)
{
  const gchar *caps = rtf_test_formats[1];
  gsize size = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("backlog.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "record=false "
      "pre-record-time=2000000000", caps, &bus);
  GstStructure *s;
  guint64 i;

  gst_harness_play (h);
  for (i = 0; i < 30; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i, size)),
        GST_FLOW_OK);
  fail_unless (emit (h->element, "start-recording", PTS (30)));
  fail_unless (emit (h->element, "stop-recording", PTS (31)));
  fail_unless_equals_int (gst_harness_push (h, own_frame (0, 30, size)),
      GST_FLOW_OK);
  /* the backlog is being written now */
  fail_unless_equals_int (gst_harness_push (h, own_frame (0, 31, size)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  s = one_message (bus, "rtframesink-recording-stopped");
  fail_unless_equals_uint64 (field_u64 (s, "frames"), 31);
  fail_unless_equals_uint64 (field_u64 (s, "prerecorded-frames"), 30);
  fail_unless_equals_uint64 (field_u64 (s, "last-frame"), 30);
  fail_unless_equals_uint64 (field_u64 (s, "frames-lost"), 0);
  gst_structure_free (s);
  rtf_test_sink_free (h, bus);
  assert_event_file (path, size, 0, 0, 30, 30);
  g_free (path);
}

GST_END_TEST;

/* A recording of the past, asked after the fact: a start at 1.0 s (with
 * its 2 s of pre-record: from 0) and a stop at 1.25 s, when frame 30
 * (1.5 s) has come.  Both pass at the next frame: the recording is its
 * backlog alone (frames 0-24), ended by the stop asked for, not left open
 * to the end (review: reason "eos", the file not finished at the stop) */
GST_START_TEST (test_past_recording_asked_after)
{
  const gchar *caps = rtf_test_formats[1];
  gsize size = rtf_test_frame_size (caps);
  gchar *pattern = rtf_test_tmp_path ("past-%d.raw");
  gchar *f0 = rtf_pattern_format (pattern, 0);
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (pattern, "record=false "
      "pre-record-time=2000000000", caps, &bus);
  GstStructure *s;
  guint64 i;

  gst_harness_play (h);
  for (i = 0; i < 31; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i, size)),
        GST_FLOW_OK);
  fail_unless (emit (h->element, "start-recording", PTS (20)));
  fail_unless (emit (h->element, "stop-recording", PTS (25)));
  for (; i < 34; i++)
    fail_unless_equals_int (gst_harness_push (h, own_frame (0, i, size)),
        GST_FLOW_OK);
  /* stopped before EOS, by the stop asked for */
  s = NULL;
  for (i = 0; i < 200 && s == NULL; i++) {
    GList *m = rtf_test_pop_element_messages (bus,
        "rtframesink-recording-stopped");

    if (m) {
      s = gst_structure_copy (gst_message_get_structure (m->data));
      g_list_free_full (m, (GDestroyNotify) gst_message_unref);
    } else {
      g_usleep (10 * 1000);
    }
  }
  fail_unless (s != NULL, "no recording-stopped before EOS");
  fail_unless_equals_string (gst_structure_get_string (s, "reason"),
      "stop-recording");
  fail_unless_equals_uint64 (field_u64 (s, "running-time"), PTS (25));
  fail_unless_equals_uint64 (field_u64 (s, "frames"), 25);
  gst_structure_free (s);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  assert_event_file (f0, size, 0, 0, 24, 25);
  g_free (f0);
  g_free (pattern);
}

GST_END_TEST;

/* EOS while frames are held: they go, and an event recorder that never
 * recorded leaves no file.  A flush lets go of what is held; the
 * recording after it starts with no backlog. */
GST_START_TEST (test_eos_and_flush_while_holding)
{
  gchar *pattern = rtf_test_tmp_path ("held-%03d.raw");
  gchar *f0 = rtf_pattern_format (pattern, 0);
  GstBus *bus;
  GstHarness *h = event_sink (pattern, "record=false "
      "pre-record-time=1000000000", &bus);
  GstStructure *st;
  guint64 i;

  for (i = 0; i < 5; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-discarded"), 5);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "pre-record-frames"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "recordings"), 0);
  gst_structure_free (st);
  fail_unless (rtf_test_pop_element_messages (bus,
          "rtframesink-recording-started") == NULL);

  /* after a flush: 3 held, flushed, 2 held, a start with the next frame */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  for (i = 5; i < 8; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  {
    GstSegment seg;

    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  }
  for (i = 8; i < 10; i++)
    push (h, i);
  fail_unless (emit (h->element, "start-recording", GST_CLOCK_TIME_NONE));
  push (h, 10);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-discarded"), 8);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 3);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);
  rtf_test_sink_free (h, bus);
  assert_event_file (f0, FRAME, 0, 8, 10, 2);
  g_free (pattern);
  g_free (f0);
}

GST_END_TEST;

/* A pattern: each recording starts a new file, and max-file-size still
 * splits within one.  rtframe-verify accepts the frames not recorded
 * between them, and rtframesrc plays every frame in order. */
GST_START_TEST (test_rotation_inside_recordings)
{
  gchar *pattern = rtf_test_tmp_path ("ev-%03d.raw");
  gchar *props = g_strdup_printf ("record=false pre-record-time=100000000 "
      "max-file-size=%d", 3 * FRAME);
  GstBus *bus;
  GstHarness *h = event_sink (pattern, props, &bus);
  static const struct
  {
    guint64 from, last, prerecorded;
  } files[] = { {3, 5, 2}, {6, 8, 0}, {9, 10, 0}, {12, 14, 2}, {15, 16, 0} };
  GstElement *pipe, *appsink;
  GstSample *sample;
  gchar *out = NULL, *desc;
  guint64 i, n = 0;
  guint k;

  for (i = 0; i < 5; i++)
    push (h, i);
  /* recording 1 from 250 ms (frames 3 and 4 held), to 550 ms */
  fail_unless (emit (h->element, "start-recording", PTS (5)));
  for (i = 5; i < 11; i++)
    push (h, i);
  fail_unless (emit (h->element, "stop-recording", PTS (11)));
  for (i = 11; i < 14; i++)
    push (h, i);
  /* recording 2 from 700 ms: 12 and 13 held */
  fail_unless (emit (h->element, "start-recording", PTS (14)));
  for (i = 14; i < 17; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  {
    GList *stops = rtf_test_pop_element_messages (bus,
        "rtframesink-recording-stopped");

    fail_unless_equals_int (g_list_length (stops), 2);
    g_list_free_full (stops, (GDestroyNotify) gst_message_unref);
  }
  rtf_test_sink_free (h, bus);

  for (k = 0; k < G_N_ELEMENTS (files); k++) {
    gchar *path = rtf_pattern_format (pattern, k);
    gchar *ipath = rtf_index_path (path);
    RtfIndex *idx = rtf_index_load (ipath, NULL);
    guint64 j;

    fail_unless (idx != NULL, "no %s", ipath);
    fail_unless_equals_uint64 (idx->n_records,
        files[k].last - files[k].from + 1);
    for (j = 0; j < idx->n_records; j++) {
      const RtfIndexRecord *r = &idx->records[j];

      fail_unless (r->seq == files[k].from + j, "file %u record %"
          G_GUINT64_FORMAT ": frame %" G_GUINT64_FORMAT ", not %"
          G_GUINT64_FORMAT, k, j, r->seq, files[k].from + j);
      fail_unless_equals_int (!!(r->flags & RTF_INDEX_REC_PRERECORDED),
          j < files[k].prerecorded);
      fail_unless_equals_int (!!(r->flags & RTF_INDEX_REC_EVENT_START),
          j == 0 && (k == 0 || k == 3));
    }
    rtf_index_free (idx);
    g_free (ipath);
    g_free (path);
  }
  {
    gchar *path = rtf_pattern_format (pattern, G_N_ELEMENTS (files));

    assert_no_file (path);
    g_free (path);
  }

  fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", pattern,
          NULL), 0);
  fail_unless (strstr (out, "2 recordings (events), 4 frames held") != NULL,
      "%s", out);
  fail_unless (strstr (out, "0 frames missing") != NULL, "%s", out);
  g_free (out);

  desc = g_strdup_printf ("rtframesrc location=\"%s\" ! appsink name=s "
      "sync=false", pattern);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  appsink = gst_bin_get_by_name (GST_BIN (pipe), "s");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (appsink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    guint8 *want = g_malloc (FRAME);
    guint64 seq = n < 8 ? 3 + n : 12 + (n - 8);

    rtf_test_fill_frame (want, FRAME, 0, seq);
    fail_unless (gst_buffer_memcmp (buf, 0, want, FRAME) == 0,
        "frame %" G_GUINT64_FORMAT " played is not frame %" G_GUINT64_FORMAT,
        n, seq);
    g_free (want);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_uint64 (n, 13);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (appsink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

/* One file (no pattern): a second recording goes on at its end; the
 * index marks where each starts.  Started and stopped by the
 * rtframe-record event in the stream: exactly at the next frame. */
GST_START_TEST (test_one_file_record_event)
{
  gchar *path = rtf_test_tmp_path ("one.raw");
  GstBus *bus;
  GstHarness *h = event_sink (path, "record=false pre-record-time=50000000",
      &bus);
  gchar *ipath = rtf_index_path (path);
  RtfIndex *idx;
  GstStructure *st;
  guint64 i;
  static const guint64 want[] = { 2, 3, 4, 7, 8 };

#define RECORD_EVENT(on) gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, \
      gst_structure_new ("rtframe-record", "record", G_TYPE_BOOLEAN, on, NULL))
  for (i = 0; i < 3; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, RECORD_EVENT (TRUE)));
  for (i = 3; i < 5; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, RECORD_EVENT (FALSE)));
  for (i = 5; i < 8; i++)
    push (h, i);
  fail_unless (gst_harness_push_event (h, RECORD_EVENT (TRUE)));
  push (h, 8);
  /* an event without "record": a warning, nothing changes */
  fail_if (gst_harness_push_event (h, gst_event_new_custom
          (GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new_empty
              ("rtframe-record"))));
  rtf_test_assert_message (bus, GST_MESSAGE_WARNING, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FAILED, "record");
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  st = rtf_test_get_stats (h);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "recordings"), 2);
  gst_structure_free (st);
  rtf_test_sink_free (h, bus);

  idx = rtf_index_load (ipath, NULL);
  fail_unless (idx != NULL);
  fail_unless_equals_uint64 (idx->n_records, G_N_ELEMENTS (want));
  for (i = 0; i < G_N_ELEMENTS (want); i++) {
    fail_unless_equals_uint64 (idx->records[i].seq, want[i]);
    fail_unless_equals_int (!!(idx->records[i].flags &
            RTF_INDEX_REC_EVENT_START), i == 0 || i == 3);
    fail_unless_equals_int (!!(idx->records[i].flags &
            RTF_INDEX_REC_PRERECORDED), i == 0 || i == 3);
  }
  rtf_index_free (idx);
  {
    gchar *out = NULL;

    fail_unless_equals_int (rtf_test_run_tool (&out, "rtframe-verify", path,
            NULL), 0);
    g_free (out);
  }
  g_free (ipath);
  g_free (path);
#undef RECORD_EVENT
}

GST_END_TEST;

/* The record property while running: now (the harness's clock stands
 * still at 0, so at the next frame) */
/* The application with only the pipeline: an rtframe-record event sent
 * upstream to it reaches every sink (a bin hands it to each), with one
 * running time for all - a start at 250 ms and a stop at 450 ms asked
 * ahead; both files hold frames 5-8, nothing went upstream */
GST_START_TEST (test_pipeline_record_event)
{
  gchar *path[2], *desc;
  GstElement *pipe;
  GstAppSrc *src[2];
  GstBus *bus;
  GstMessage *msg;
  guint c, i;

  path[0] = rtf_test_tmp_path ("pipe0.raw");
  path[1] = rtf_test_tmp_path ("pipe1.raw");
  desc = g_strdup_printf ("appsrc name=s0 caps=\"%s\" format=time ! "
      "rtframesink location=\"%s\" record=false  appsrc name=s1 caps=\"%s\" "
      "format=time ! rtframesink location=\"%s\" record=false", CAPS,
      path[0], CAPS, path[1]);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  bus = gst_element_get_bus (pipe);
  src[0] = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipe), "s0"));
  src[1] = GST_APP_SRC (gst_bin_get_by_name (GST_BIN (pipe), "s1"));
  gst_element_set_state (pipe, GST_STATE_PAUSED);
  fail_unless (gst_element_send_event (pipe,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtframe-record", "record", G_TYPE_BOOLEAN,
                  TRUE, "running-time", G_TYPE_UINT64, 250 * MS, NULL))));
  fail_unless (gst_element_send_event (pipe,
          gst_event_new_custom (GST_EVENT_CUSTOM_UPSTREAM,
              gst_structure_new ("rtframe-record", "record", G_TYPE_BOOLEAN,
                  FALSE, "running-time", G_TYPE_UINT64, 450 * MS, NULL))));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < 10; i++)
    for (c = 0; c < 2; c++)
      fail_unless_equals_int (gst_app_src_push_buffer (src[c],
              own_frame (c, i, FRAME)), GST_FLOW_OK);
  for (c = 0; c < 2; c++)
    gst_app_src_end_of_stream (src[c]);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (c = 0; c < 2; c++) {
    assert_event_file (path[c], FRAME, c, 5, 8, 0);
    gst_object_unref (src[c]);
    g_free (path[c]);
  }
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_END_TEST;

GST_START_TEST (test_record_property)
{
  gchar *path = rtf_test_tmp_path ("prop.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "record=false", CAPS, &bus);
  gchar *ipath = rtf_index_path (path);
  gboolean record = TRUE;
  RtfIndex *idx;
  guint64 i;

  gst_harness_use_testclock (h);
  gst_harness_play (h);
  push (h, 0);
  g_object_set (h->element, "record", TRUE, NULL);
  g_object_get (h->element, "record", &record, NULL);
  fail_unless (record);
  push (h, 1);
  push (h, 2);
  g_object_set (h->element, "record", FALSE, NULL);
  g_object_get (h->element, "record", &record, NULL);
  fail_if (record);
  push (h, 3);
  /* stopped already: refused, with a warning in the log only */
  fail_if (emit (h->element, "stop-recording", GST_CLOCK_TIME_NONE));
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  rtf_test_sink_free (h, bus);
  idx = rtf_index_load (ipath, NULL);
  fail_unless (idx != NULL);
  fail_unless_equals_uint64 (idx->n_records, 2);
  for (i = 0; i < 2; i++)
    fail_unless_equals_uint64 (idx->records[i].seq, 1 + i);
  rtf_index_free (idx);
  g_free (ipath);
  g_free (path);
}

GST_END_TEST;

static Suite *
event_recording_suite (void)
{
  Suite *s = suite_create ("event-recording");
  TCase *tc = rtf_test_tcase (s, "general");

  tcase_add_test (tc, test_three_cameras);
  tcase_add_test (tc, test_max_bytes_bound);
  tcase_add_test (tc, test_small_upstream_pool);
  tcase_add_test (tc, test_proposed_pool_held_as_is);
  tcase_add_test (tc, test_stop_during_backlog);
  tcase_add_test (tc, test_eos_and_flush_while_holding);
  tcase_add_test (tc, test_rotation_inside_recordings);
  tcase_add_test (tc, test_one_file_record_event);
  tcase_add_test (tc, test_record_property);
  tcase_add_test (tc, test_pipeline_record_event);
  tcase_add_test (tc, test_past_recording_asked_after);
  return s;
}

GST_CHECK_MAIN (event_recording);
