/* gst-check tests of rtframesink: real files in $TMPDIR, no fake writer. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <fcntl.h>
#include <sched.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtf-test-sink.h"
#include "rtf-test-util.h"

#define IS_REPACKED(kind) ((kind) == INPUT_STRIDED || (kind) == INPUT_MOVED)

/* Frame `seq` as the same frame unstrided: its pixels in the default
 * layout, the row padding of that layout zero (a frame with a GstVideoMeta
 * carries no bytes for it).
 *
 * Made from the padded-row version (INPUT_STRIDED) of the frame, because
 * gst_video_frame_copy() between two frames of the same strides copies
 * whole rows, padding included, on GStreamer 1.26.2 (1.22.0 copies the
 * pixels of each row only): built with a copy of the tight frame, this
 * reference held the test pattern's padding bytes on 1.26 ("frame 0
 * differs": 30 of the 832 bytes of an I420_10LE 33x7 frame, 2 at the end
 * of each of its 7 Y and 2x4 chroma rows; 66 of the 924 of GBR_10LE
 * 13x11), while the file has zeros there on both.  The layout itself is
 * the same on 1.22 and 1.26: frame size, plane offsets and strides from
 * gst_video_info_set_format() (I420_10LE 33x7: 832 bytes, strides
 * 68/36/36, offsets 0/544/688; GBR_10LE 13x11: 924, 28, 0/308/616), and
 * what filesink writes from videotestsrc (832 and 924 bytes a frame). */
static GstBuffer *
unstrided_frame (GstHarness * h, const gchar * caps_str, guint64 seq)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstBuffer *strided = rtf_test_make_frame (h, caps_str, seq, INPUT_STRIDED);
  GstVideoInfo info, padded;
  GstVideoFrame in, out;
  GstVideoMeta *meta = gst_buffer_get_video_meta (strided);
  GstBuffer *tight;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  padded = info;
  for (i = 0; i < meta->n_planes; i++) {
    padded.offset[i] = meta->offset[i];
    padded.stride[i] = meta->stride[i];
  }
  padded.size = gst_buffer_get_size (strided);
  tight = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_memset (tight, 0, 0, GST_VIDEO_INFO_SIZE (&info));
  fail_unless (gst_video_frame_map (&in, &padded, strided, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out, &info, tight, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&out, &in));
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  gst_buffer_unref (strided);
  GST_BUFFER_PTS (tight) = seq * GST_SECOND / 20;
  GST_BUFFER_DURATION (tight) = GST_SECOND / 20;
  return tight;
}

/* What a frame with a GstVideoMeta becomes in the file: what filesink, on
 * the running GStreamer, writes for the same frames unstrided. */
static void
assert_file_repacked (const gchar * path, const gchar * caps_str, guint64 n)
{
  gchar *ref = rtf_test_tmp_path ("filesink.raw");
  GstElement *filesink = gst_element_factory_make ("filesink", NULL);
  GstHarness *h;
  guint64 i;

  g_object_set (filesink, "location", ref, NULL);
  h = gst_harness_new_with_element (filesink, "sink", NULL);
  gst_object_unref (filesink);
  gst_harness_set_src_caps_str (h, caps_str);
  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, unstrided_frame (h,
                caps_str, i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  gst_harness_teardown (h);
  rtf_test_assert_same_bytes (path, ref);
  g_unlink (ref);
  g_free (ref);
}

/* ---- byte-exact output ------------------------------------------------ */

static void
record_and_check (const gchar * caps, InputKind kind, const gchar * props,
    guint n)
{
  gchar *path = rtf_test_tmp_path ("out.raw");
  gsize fsize = rtf_test_frame_size (caps);
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, props, caps, &bus);
  guint i;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, kind)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  /* at EOS the file is complete */
  if (IS_REPACKED (kind))
    assert_file_repacked (path, caps, n);
  else
    rtf_test_assert_file (path, fsize, 0, n);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "bytes-written"), n * fsize);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-zero-copy") +
      rtf_test_get_u64 (h, "frames-copied"), n);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-lost"), 0);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-repacked"),
      IS_REPACKED (kind) ? n : 0);

  rtf_test_sink_free (h, bus);
  if (!IS_REPACKED (kind))
    rtf_test_assert_file (path, fsize, 0, n);
  g_unlink (path);
  g_free (path);
}

GST_START_TEST (test_byte_exact_pool)
{
  record_and_check (rtf_test_formats[__i__], INPUT_POOL, NULL, 12);
}

GST_END_TEST;

GST_START_TEST (test_byte_exact_unaligned)
{
  record_and_check (rtf_test_formats[__i__], INPUT_UNALIGNED, NULL, 12);
}

GST_END_TEST;

GST_START_TEST (test_byte_exact_pieces)
{
  record_and_check (rtf_test_formats[__i__], INPUT_PIECES, NULL, 12);
}

GST_END_TEST;

GST_START_TEST (test_byte_exact_strided)
{
  record_and_check (rtf_test_formats[__i__], INPUT_STRIDED, NULL, 12);
}

GST_END_TEST;

GST_START_TEST (test_byte_exact_moved_planes)
{
  record_and_check (rtf_test_formats[__i__], INPUT_MOVED, NULL, 12);
}

GST_END_TEST;

GST_START_TEST (test_byte_exact_psync_buffered)
{
  record_and_check (rtf_test_formats[__i__], INPUT_UNALIGNED,
      "io-engine=psync direct=off", 12);
}

GST_END_TEST;

/* The 10-bit raw formats are the running GStreamer's own (its format
 * table, at run time): 30 in 1.22.0, 34 in 1.26.2, which adds GRAY10_LE16
 * (1.26: 10 bits in 16-bit samples, what cameras' Mono10 is) and the tiled
 * MT2110T, MT2110R and NV12_10LE40_4L4 (1.24).  GRAY10_LE16, where the running
 * GStreamer knows it (a feature check), is taken and recorded byte-exact,
 * from the pool and strided; where it does not, the caps are refused. */
GST_START_TEST (test_newer_formats)
{
  const gchar *caps = "video/x-raw,format=GRAY10_LE16,width=33,height=7,"
      "framerate=20/1";
  gboolean known =
      gst_video_format_from_string ("GRAY10_LE16") != GST_VIDEO_FORMAT_UNKNOWN;
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *c = gst_caps_from_string (caps);

  fail_unless_equals_int (gst_pad_query_accept_caps (pad, c), known);
  gst_caps_unref (c);
  gst_object_unref (pad);
  gst_object_unref (sink);
  if (!known)
    return;
  /* 33 16-bit samples in rows of 68 bytes */
  fail_unless_equals_uint64 (rtf_test_frame_size (caps), 68 * 7);
  record_and_check (caps, INPUT_POOL, NULL, 12);
  record_and_check (caps, INPUT_STRIDED, NULL, 12);
}

GST_END_TEST;

/* 10-bit Bayer (video/x-bayer, bggr10le ...) is taken from GStreamer 1.24
 * on, where those formats exist (a run-time check of the version,
 * gst/gstrtframecaps.c): a frame is `height` rows of GST_ROUND_UP_4
 * (width) 16-bit samples (1022x8: 1024 x 2 x 8 = 16384 bytes, 4 blocks),
 * recorded byte-exact and zero-copy from the proposed pool's buffers.
 * Before 1.24 the sink pad refuses the caps. */
GST_START_TEST (test_bayer10)
{
  const gchar *caps = "video/x-bayer,format=bggr10le,width=1022,height=8,"
      "framerate=20/1";
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *c = gst_caps_from_string (caps);
  gboolean taken = gst_pad_query_accept_caps (pad, c);
  guint major, minor, micro, nano, i;
  gchar *path;
  GstBus *bus;
  GstHarness *h;

  gst_caps_unref (c);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_version (&major, &minor, &micro, &nano);
  fail_unless_equals_int (taken, major > 1 || minor >= 24);
  if (!taken)
    return;

  path = rtf_test_tmp_path ("bayer.raw");
  h = rtf_test_sink_new (path, NULL, caps, &bus);
  for (i = 0; i < 12; i++) {
    GstBuffer *buf = gst_harness_create_buffer (h, 16384);
    GstMapInfo map;

    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    rtf_test_fill_frame (map.data, map.size, 0, i);
    gst_buffer_unmap (buf, &map);
    fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_file (path, 16384, 0, 12);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-zero-copy"), 12);
  rtf_test_sink_free (h, bus);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

/* Same input through filesink and rtframesink (tee): identical files. */

GST_START_TEST (test_same_as_filesink)
{
  static const gchar *const caps[] = {
    "format=P010_10LE,width=2048,height=928",
    "format=v210,width=17,height=3",
    "format=Y410,width=1000,height=99",
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (caps); i++) {
    gchar *a = rtf_test_tmp_path ("a.raw"), *b = rtf_test_tmp_path ("b.raw");
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=25 "
        "pattern=snow ! video/x-raw,%s,framerate=20/1 ! tee name=t "
        "t. ! queue ! rtframesink location=%s t. ! queue ! filesink "
        "location=%s", caps[i], a, b);

    rtf_test_stop_pipeline (rtf_test_play_to_eos (desc));
    rtf_test_assert_same_bytes (a, b);
    g_free (a);
    g_free (b);
    g_free (desc);
  }
}

GST_END_TEST;

/* A recording plays back with filesrc ! rawvideoparse and the caps. */
GST_START_TEST (test_playback_rawvideoparse)
{
  const gchar *caps = rtf_test_formats[1];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("play.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstElement *pipe, *appsink;
  gchar *desc;
  guint8 *want = g_malloc (fsize);
  guint i, n = 0;

  for (i = 0; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);

  desc = g_strdup_printf ("filesrc location=%s ! rawvideoparse "
      "format=p010-10le width=1920 height=1080 framerate=20/1 ! appsink "
      "name=out sync=false", path);
  pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  appsink = gst_bin_get_by_name (GST_BIN (pipe), "out");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstSample *sample = NULL;

    g_signal_emit_by_name (appsink, "pull-sample", &sample);
    if (sample == NULL)
      break;
    rtf_test_fill_frame (want, fsize, 0, n);
    fail_unless (gst_buffer_memcmp (gst_sample_get_buffer (sample), 0, want,
            fsize) == 0, "frame %u", n);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (gst_sample_get_buffer
            (sample)), n * GST_SECOND / 20);
    gst_sample_unref (sample);
    n++;
  }
  fail_unless_equals_int (n, 8);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (appsink);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (want);
  g_free (path);
}

GST_END_TEST;

/* ---- zero copy -------------------------------------------------------- */

GST_START_TEST (test_zero_copy_with_pool)
{
  const gchar *caps = rtf_test_formats[0];      /* 5,701,632 bytes: 1392 x 4096 */
  gchar *path = rtf_test_tmp_path ("zc.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  guint i;

  for (i = 0; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  if (rtf_test_get_u64 (h, "write-alignment") > 1) {
    /* direct I/O: the pool's memory went to the disk as it was */
    fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-zero-copy"), 10);
    fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-copied"), 0);
  }
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 10);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_copy_without_pool)
{
  const gchar *caps = rtf_test_formats[0];
  gchar *path = rtf_test_tmp_path ("cp.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "direct=on", caps, &bus);
  guint i;

  for (i = 0; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-zero-copy"), 0);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-copied"), 10);
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 10);
  g_free (path);
}

GST_END_TEST;

/* The proposed pool's memory is aligned for direct I/O. */
GST_START_TEST (test_proposed_pool_alignment)
{
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("pool.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstBuffer *buf = gst_harness_create_buffer (h, rtf_test_frame_size (caps));
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
  fail_unless_equals_int (((guintptr) map.data) % 4096, 0);
  gst_buffer_unmap (buf, &map);
  gst_buffer_unref (buf);
  rtf_test_sink_free (h, bus);
  g_free (path);
}

GST_END_TEST;

/* ---- EOS -------------------------------------------------------------- */

typedef struct
{
  gchar *path;
  gsize frame_size;
  guint n;
  gboolean checked;
} EosCheck;

/* Runs in the thread that posts EOS, at that moment: the file must be
 * complete, read back from the disk (O_DIRECT bypasses the page cache). */
static GstBusSyncReply
check_at_eos (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  EosCheck *c = user_data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    struct stat st;
    gsize total = c->frame_size * c->n, got = 0;
    guint8 *data = NULL, *want = g_malloc (c->frame_size);
    gint fd;
    guint i;

    fail_unless (stat (c->path, &st) == 0);
    fail_unless_equals_uint64 (st.st_size, total);
    fd = open (c->path, O_RDONLY | O_DIRECT);
    fail_unless (fd >= 0);
    fail_unless (posix_memalign ((void **) &data, 4096, total + 4096) == 0);
    while (got < total) {
      ssize_t r = read (fd, data + got, total + 4096 - got);

      fail_unless (r > 0);
      got += r;
    }
    close (fd);
    for (i = 0; i < c->n; i++) {
      rtf_test_fill_frame (want, c->frame_size, 0, i);
      fail_unless (memcmp (want, data + i * c->frame_size,
              c->frame_size) == 0, "frame %u not on disk at EOS", i);
    }
    free (data);
    g_free (want);
    c->checked = TRUE;
  }
  return GST_BUS_PASS;
}

GST_START_TEST (test_eos_file_complete)
{
  const gchar *caps = rtf_test_formats[3];      /* odd size: a padded tail block */
  EosCheck c =
      { rtf_test_tmp_path ("eos.raw"), rtf_test_frame_size (caps), 9, FALSE };
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (c.path, NULL, caps, &bus);
  GList *stats;
  guint i;

  gst_bus_set_sync_handler (bus, check_at_eos, &c, NULL);
  for (i = 0; i < c.n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (c.checked);

  /* the final stats message came before EOS (deadline messages may come
   * before it on a slow machine) */
  stats = rtf_test_pop_element_messages (bus, "rtframesink-stats");
  fail_unless_equals_int (g_list_length (stats), 1);
  g_list_free_full (stats, (GDestroyNotify) gst_message_unref);

  rtf_test_sink_free (h, bus);
  g_free (c.path);
}

GST_END_TEST;

GST_START_TEST (test_eos_without_frames)
{
  gchar *path = rtf_test_tmp_path ("empty.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, rtf_test_formats[0], &bus);
  struct stat st;

  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (stat (path, &st) == 0);
  fail_unless_equals_uint64 (st.st_size, 0);
  rtf_test_sink_free (h, bus);
  g_free (path);
}

GST_END_TEST;

/* Stopping without EOS still writes every frame accepted. */
GST_START_TEST (test_stop_writes_everything)
{
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("stop.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "max-size-buffers=32", caps, &bus);
  guint i;

  for (i = 0; i < 30; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 30);
  g_free (path);
}

GST_END_TEST;

/* ---- errors ----------------------------------------------------------- */

static void
assert_error (GstBus * bus, GQuark domain, gint code, const gchar * substr)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (msg != NULL, "no error posted");
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (err->domain == domain, "domain %s, expected %s",
      g_quark_to_string (err->domain), g_quark_to_string (domain));
  fail_unless_equals_int (err->code, code);
  if (substr)
    fail_unless (strstr (err->message, substr) != NULL,
        "'%s' not in '%s'", substr, err->message);
  GST_INFO ("error: %s (%s)", err->message, dbg);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
}

static GstStateChangeReturn
start_alone (const gchar * location, const gchar * props, GstElement ** sink,
    GstBus ** bus)
{
  GstStateChangeReturn ret;

  *sink = gst_element_factory_make ("rtframesink", NULL);
  if (location)
    g_object_set (*sink, "location", location, NULL);
  if (props) {
    gchar **p = g_strsplit (props, "=", 2);

    gst_util_set_object_arg (G_OBJECT (*sink), p[0], p[1]);
    g_strfreev (p);
  }
  *bus = gst_bus_new ();
  gst_element_set_bus (*sink, *bus);
  ret = gst_element_set_state (*sink, GST_STATE_PAUSED);
  return ret;
}

static void
stop_alone (GstElement * sink, GstBus * bus)
{
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_element_set_bus (sink, NULL);
  gst_object_unref (sink);
  gst_object_unref (bus);
}

GST_START_TEST (test_error_no_location)
{
  GstElement *sink;
  GstBus *bus;

  fail_unless_equals_int (start_alone (NULL, NULL, &sink, &bus),
      GST_STATE_CHANGE_FAILURE);
  assert_error (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND, NULL);
  stop_alone (sink, bus);
}

GST_END_TEST;

GST_START_TEST (test_error_unwritable)
{
  static const gchar *const paths[] = {
    "/nonexistent-rtframe-dir/out.raw", "/proc/rtframe-test.raw", "/"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (paths); i++) {
    GstElement *sink;
    GstBus *bus;

    fail_unless_equals_int (start_alone (paths[i], NULL, &sink, &bus),
        GST_STATE_CHANGE_FAILURE);
    assert_error (bus, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        paths[i]);
    stop_alone (sink, bus);
  }
}

GST_END_TEST;

GST_START_TEST (test_error_wrong_size)
{
  const gchar *caps = rtf_test_formats[3];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("wrong.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              fsize - 1, NULL)), GST_FLOW_ERROR);
  assert_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "bytes");
  fail_unless_equals_int (gst_harness_push (h,
          gst_buffer_new_allocate (NULL, fsize + 1, NULL)), GST_FLOW_ERROR);
  assert_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT, "bytes");
  rtf_test_sink_free (h, bus);
  /* only the whole frames before it */
  rtf_test_assert_file (path, fsize, 0, 3);
  g_free (path);
}

GST_END_TEST;

/* An empty GAP buffer is skipped; a non-empty one is a frame. */
GST_START_TEST (test_gap_buffer)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("gap.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstBuffer *gap = gst_buffer_new ();

  GST_BUFFER_FLAG_SET (gap, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 0,
              INPUT_POOL)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gap), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 1,
              INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 2);
  g_free (path);
}

GST_END_TEST;

/* ---- threads, properties, lifecycle ----------------------------------- */

GST_START_TEST (test_stream_status)
{
  gchar *path = rtf_test_tmp_path ("ss.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, rtf_test_formats[3], &bus);
  static const GstStreamStatusType want[] = { GST_STREAM_STATUS_TYPE_CREATE,
    GST_STREAM_STATUS_TYPE_ENTER, GST_STREAM_STATUS_TYPE_LEAVE,
    GST_STREAM_STATUS_TYPE_DESTROY
  };
  static const gchar *const tasks[] = { "rtframesink-writer",
    "rtframesink-reporter"
  };
  guint seen[2] = { 0, 0 };
  GstMessage *msg;
  guint t;

  gst_harness_teardown (h);
  /* for each of the element's two threads, in order */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_STREAM_STATUS))) {
    GstStreamStatusType type;
    GstElement *owner;
    const GValue *obj = gst_message_get_stream_status_object (msg);
    gchar *name;

    gst_message_parse_stream_status (msg, &type, &owner);
    fail_unless_equals_string (GST_OBJECT_NAME (gst_element_get_factory
            (owner)), "rtframesink");
    fail_unless (G_VALUE_HOLDS (obj, GST_TYPE_TASK));
    name = gst_object_get_name (g_value_get_object (obj));
    for (t = 0; t < 2 && g_strcmp0 (name, tasks[t]) != 0; t++);
    fail_unless (t < 2, "unknown task %s", name);
    fail_unless (seen[t] < G_N_ELEMENTS (want));
    fail_unless_equals_int (type, want[seen[t]]);
    seen[t]++;
    g_free (name);
    gst_message_unref (msg);
  }
  fail_unless_equals_int (seen[0], G_N_ELEMENTS (want));
  fail_unless_equals_int (seen[1], G_N_ELEMENTS (want));
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  g_free (path);
}

GST_END_TEST;

/* With io-engine=psync and a rotated recording the writer has two helper
 * threads (pwrite, files): they are tasks announced like the writer's, and
 * they get the writer's scheduling (thread-cpus) before ENTER. */
typedef struct
{
  GMutex lock;
  GString *types[4];            /* per task: C E L D as posted */
  gboolean pinned[4];           /* at ENTER the thread ran on CPU 0 only */
} ThreadLog;

static const gchar *const all_tasks[] = { "rtframesink-writer",
  "rtframesink-reporter", "rtframesink-pwrite", "rtframesink-files"
};

static GstBusSyncReply
log_stream_status (GstBus * bus, GstMessage * msg, gpointer data)
{
  ThreadLog *log = data;
  GstStreamStatusType type;
  GstElement *owner;
  const GValue *obj;
  gchar *name;
  guint t;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_STREAM_STATUS)
    return GST_BUS_PASS;
  gst_message_parse_stream_status (msg, &type, &owner);
  obj = gst_message_get_stream_status_object (msg);
  fail_unless (G_VALUE_HOLDS (obj, GST_TYPE_TASK));
  name = gst_object_get_name (g_value_get_object (obj));
  for (t = 0; t < 4 && g_strcmp0 (name, all_tasks[t]) != 0; t++);
  fail_unless (t < 4, "unknown task %s", name);
  g_free (name);
  g_mutex_lock (&log->lock);
  g_string_append_c (log->types[t], "CELD"[type ==
          GST_STREAM_STATUS_TYPE_CREATE ? 0 : type ==
          GST_STREAM_STATUS_TYPE_ENTER ? 1 : type ==
          GST_STREAM_STATUS_TYPE_LEAVE ? 2 : 3]);
  if (type == GST_STREAM_STATUS_TYPE_ENTER) {
    cpu_set_t set;

    fail_unless (sched_getaffinity (0, sizeof (set), &set) == 0);
    log->pinned[t] = CPU_COUNT (&set) == 1 && CPU_ISSET (0, &set);
  }
  g_mutex_unlock (&log->lock);
  return GST_BUS_PASS;
}

GST_START_TEST (test_helper_threads_announced)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *pattern = rtf_test_tmp_path ("helpers-%d.raw");
  gchar *props = g_strdup_printf ("io-engine=psync thread-cpus=0 "
      "max-file-size=%" G_GSIZE_FORMAT, 2 * rtf_test_frame_size (caps));
  ThreadLog log = { 0 };
  GstBus *bus;
  GstHarness *h;
  guint i;

  g_mutex_init (&log.lock);
  for (i = 0; i < 4; i++)
    log.types[i] = g_string_new (NULL);
  h = rtf_test_sink_new_full (pattern, props, caps, log_stream_status, &log,
      &bus);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-written"), 5);
  rtf_test_sink_free (h, bus);

  for (i = 0; i < 4; i++) {
    fail_unless_equals_string (log.types[i]->str, "CELD");
    g_string_free (log.types[i], TRUE);
  }
  /* the reporter keeps the default; the writer and its helpers do not */
  fail_unless (log.pinned[0] && log.pinned[2] && log.pinned[3]);
  /* and the recording: frames 0-1, 2-3, 4 */
  for (i = 0; i < 3; i++) {
    gchar *name = g_strdup_printf ("helpers-%u.raw", i);
    gchar *file = rtf_test_tmp_path (name);
    guint64 *seqs = NULL;

    fail_unless_equals_int (rtf_test_scan_frames (file,
            rtf_test_frame_size (caps), 0, &seqs), i < 2 ? 2 : 1);
    fail_unless_equals_uint64 (seqs[0], 2 * i);
    g_free (seqs);
    g_free (file);
    g_free (name);
  }
  g_mutex_clear (&log.lock);
  g_free (props);
  g_free (pattern);
}

GST_END_TEST;

GST_START_TEST (test_properties_locked_while_running)
{
  gchar *path = rtf_test_tmp_path ("p.raw"), *other =
      rtf_test_tmp_path ("other.raw");
  gchar *loc = NULL;
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, rtf_test_formats[3], &bus);
  guint depth = 0;

  g_object_set (h->element, "location", other, "io-depth", 9, NULL);
  g_object_get (h->element, "location", &loc, "io-depth", &depth, NULL);
  fail_unless_equals_string (loc, path);
  fail_unless_equals_int (depth, 4);
  g_free (loc);
  rtf_test_sink_free (h, bus);
  g_free (path);
  g_free (other);
}

GST_END_TEST;

GST_START_TEST (test_caps_template)
{
  GstElementFactory *f = gst_element_factory_find ("rtframesink");
  GstElement *sink = gst_element_factory_create (f, NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);
  static const gchar *const yes[] = { "P010_10LE", "v210", "UYVP", "r210",
    "I420_10LE", "I422_10BE", "Y444_10LE", "GBR_10LE", "GBRA_10BE",
    "A420_10LE", "A444_10BE", "NV12_10LE32", "NV16_10LE32", "NV12_10LE40",
    "Y210", "Y410", "GRAY10_LE32", "RGB10A2_LE", "BGR10A2_LE"
  };
  static const gchar *const no[] = { "I420", "NV12", "P012_LE", "RGBA",
    "GRAY16_LE"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (yes); i++) {
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=64,height=64,"
        "framerate=20/1", yes[i]);
    GstCaps *c = gst_caps_from_string (s);

    fail_unless (gst_caps_can_intersect (c, tmpl), "%s refused", yes[i]);
    gst_caps_unref (c);
    g_free (s);
  }
  for (i = 0; i < G_N_ELEMENTS (no); i++) {
    gchar *s = g_strdup_printf ("video/x-raw,format=%s,width=64,height=64",
        no[i]);
    GstCaps *c = gst_caps_from_string (s);

    fail_if (gst_caps_can_intersect (c, tmpl), "%s accepted", no[i]);
    gst_caps_unref (c);
    g_free (s);
  }
  /* 10-bit Bayer exists from GStreamer 1.24 on */
  {
    GstCaps *c = gst_caps_from_string ("video/x-bayer,format=bggr10le,"
        "width=64,height=64,framerate=20/1");
    guint maj, min, mic, nano;

    gst_version (&maj, &min, &mic, &nano);
    fail_unless_equals_int (gst_caps_can_intersect (c, tmpl), min >= 24);
    gst_caps_unref (c);
  }
  gst_caps_unref (tmpl);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_object_unref (f);
}

GST_END_TEST;

/* Load beside the test: a CPU spinning and buffered writes to another file
 * of the same filesystem, until stop is set. */
typedef struct
{
  gint stop;
  gchar *path;
  GThread *cpu, *disk;
  guint64 spins, bytes;
} Load;

static gpointer
load_cpu (gpointer data)
{
  Load *l = data;
  volatile guint64 x = 0;

  while (!g_atomic_int_get (&l->stop))
    for (guint i = 0; i < 100000; i++)
      x += i;
  l->spins = x;
  return NULL;
}

static gpointer
load_disk (gpointer data)
{
  Load *l = data;
  guint8 *chunk = g_malloc0 (1 << 20);
  gint fd = open (l->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

  while (fd >= 0 && !g_atomic_int_get (&l->stop)) {
    if (write (fd, chunk, 1 << 20) <= 0)
      break;
    l->bytes += 1 << 20;
    if (l->bytes % (64 << 20) == 0) {
      fdatasync (fd);
      ftruncate (fd, 0);
      lseek (fd, 0, SEEK_SET);
    }
  }
  if (fd >= 0)
    close (fd);
  g_free (chunk);
  return NULL;
}

static void
load_start (Load * l)
{
  l->stop = 0;
  l->path = rtf_test_tmp_path ("load.bin");
  l->cpu = g_thread_new ("load-cpu", load_cpu, l);
  l->disk = g_thread_new ("load-disk", load_disk, l);
}

static void
load_stop (Load * l)
{
  g_atomic_int_set (&l->stop, 1);
  g_thread_join (l->cpu);
  g_thread_join (l->disk);
  g_unlink (l->path);
  g_free (l->path);
}

/* 105 start/record/stop cycles while the CPU and the disk are busy with
 * other work: every file exact, no fd or thread left behind */
GST_START_TEST (test_cycles_no_leaks)
{
  const gchar *caps = rtf_test_formats[3];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("cyc.raw");
  guint fds = 0, threads = 0, n, i, k;
  /* valgrind runs everything ~50 times slower, on one CPU at a time: fewer
   * cycles there, and no load beside (it is there for memory errors) */
  gboolean valgrind = rtf_test_time_scale () >= 10;
  guint cycles = valgrind ? 35 : 105;
  Load load = { 0 };

  if (!valgrind)
    load_start (&load);
  for (i = 0; i < cycles; i++) {
    GstBus *bus;
    GstHarness *h;

    if (i == 5) {               /* after warm-up (thread pools, registry) */
      fds = rtf_test_count_fds ();
      threads = rtf_test_settled_threads (G_MAXUINT);
    }
    h = rtf_test_sink_new (path, NULL, caps, &bus);
    for (k = 0; k < 3; k++)
      fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                  k, INPUT_POOL)), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    rtf_test_sink_free (h, bus);
    rtf_test_assert_file (path, fsize, 0, 3);
  }
  fail_unless_equals_int (rtf_test_count_fds (), fds);
  /* GstTask threads come from GLib's shared pool and leave it a while
   * after their task ends; a thread leaked per cycle would show as 30 or
   * 100 more. */
  n = rtf_test_settled_threads (threads);
  fail_unless (n <= threads, "threads %u > %u", n, threads);
  if (!valgrind) {
    load_stop (&load);
    g_print ("cycles under load: %" G_GUINT64_FORMAT " MB written beside\n",
        load.bytes >> 20);
    fail_unless (load.bytes > 0);
  }
  g_free (path);
}

GST_END_TEST;

/* Eight recorders in one pipeline, each its own file: every file is the
 * same as filesink's from the same tee */
GST_START_TEST (test_eight_sinks_one_pipeline)
{
  GString *desc = g_string_new ("videotestsrc num-buffers=40 pattern=snow "
      "! video/x-raw,format=P010_10LE,width=320,height=240,framerate=20/1 "
      "! tee name=t ");
  gchar *ref = rtf_test_tmp_path ("ref.raw");
  gchar *paths[8];
  GstElement *pipe;
  struct stat sb;
  guint i;

  for (i = 0; i < 8; i++) {
    gchar *name = g_strdup_printf ("sink%u.raw", i);

    paths[i] = rtf_test_tmp_path (name);
    g_string_append_printf (desc, "t. ! queue ! rtframesink name=r%u "
        "location=%s ", i, paths[i]);
    g_free (name);
  }
  g_string_append_printf (desc, "t. ! queue ! filesink location=%s", ref);
  pipe = rtf_test_play_to_eos (desc->str);
  for (i = 0; i < 8; i++) {
    gchar *name = g_strdup_printf ("r%u", i);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), name);
    guint64 written;

    g_object_get (sink, "frames-written", &written, NULL);
    fail_unless_equals_uint64 (written, 40);
    gst_object_unref (sink);
    g_free (name);
  }
  rtf_test_stop_pipeline (pipe);

  fail_unless (g_stat (ref, &sb) == 0);
  fail_unless_equals_uint64 (sb.st_size, 40 * 320 * 240 * 3);
  for (i = 0; i < 8; i++) {
    rtf_test_assert_same_bytes (paths[i], ref);
    g_unlink (paths[i]);
    g_free (paths[i]);
  }
  g_unlink (ref);
  g_free (ref);
  g_string_free (desc, TRUE);
}

GST_END_TEST;

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
  fail_unless_equals_int64 (rtf_test_msg_i64 (msg,
          "deadline") - rtf_test_msg_i64 (msg, "arrival"), 50 * GST_MSECOND);
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

/* deadline = 1 us: every frame misses, each reported once, when its
 * deadline passes.  Its arrival is when render ran (between the test's own
 * CLOCK_MONOTONIC readings around the push) and the miss is seen within
 * 10 ms of the deadline (measured: at most 0.35-0.7 ms in 5 runs on an idle
 * 2-CPU machine; the bound leaves room for a busy CI machine, and is
 * stretched under sanitizers and valgrind).  That it is seen before the
 * write completes is test_deadline_seen_before_completion. */
GST_START_TEST (test_deadline_every_frame_misses)
{
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("dl.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=1000", caps, &bus);
  GList *missed, *l;
  guint i, n = 20;
  gint64 pushed[20][2];
  guint64 expect = 0;

  for (i = 0; i < n; i++) {
    GstBuffer *frame = rtf_test_make_frame (h, caps, i, INPUT_POOL);

    pushed[i][0] = g_get_monotonic_time () * 1000;
    fail_unless_equals_int (gst_harness_push (h, frame), GST_FLOW_OK);
    pushed[i][1] = g_get_monotonic_time () * 1000;
    g_usleep (5000);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  missed = rtf_test_pop_element_messages (bus, "rtframesink-deadline-missed");
  rtf_test_sink_free (h, bus);
  /* all were posted before EOS */
  fail_unless_equals_int (g_list_length (missed), n);
  for (l = missed; l; l = l->next, expect++) {
    GstMessage *m = l->data;
    const gchar *where = gst_structure_get_string (gst_message_get_structure
        (m), "where");

    fail_unless_equals_uint64 (rtf_test_msg_u64 (m, "frame"), expect);
    fail_unless_equals_uint64 (rtf_test_msg_u64 (m, "pts"),
        expect * GST_SECOND / 20);
    /* the microsecond clock of the test against the element's ns */
    fail_unless (rtf_test_msg_i64 (m, "arrival") >= pushed[expect][0]
        && rtf_test_msg_i64 (m, "arrival") < pushed[expect][1] + 1000);
    fail_unless_equals_int64 (rtf_test_msg_i64 (m,
            "deadline") - rtf_test_msg_i64 (m, "arrival"), 1000);
    fail_unless (rtf_test_msg_i64 (m, "detected") >= rtf_test_msg_i64 (m,
            "deadline"));
    fail_unless_equals_int64 (rtf_test_msg_i64 (m, "lateness"),
        rtf_test_msg_i64 (m, "detected") - rtf_test_msg_i64 (m, "deadline"));
    fail_unless (rtf_test_msg_i64 (m,
            "lateness") < 10 * GST_MSECOND * rtf_test_time_scale (),
        "frame %" G_GUINT64_FORMAT " reported %" G_GINT64_FORMAT " ns late",
        expect, rtf_test_msg_i64 (m, "lateness"));
    fail_unless (g_strcmp0 (where, "queued") == 0
        || g_strcmp0 (where, "in-flight") == 0, "where=%s", where);
  }
  g_list_free_full (missed, (GDestroyNotify) gst_message_unref);
  g_free (path);
}

GST_END_TEST;

/* The same with the stats and late completions checked against the
 * messages. */
GST_START_TEST (test_deadline_stats_agree)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("dls.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=1000", caps, &bus);
  GstStructure *st;
  GList *missed;
  guint i, n = 30;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = rtf_test_get_stats (h);
  missed = rtf_test_pop_element_messages (bus, "rtframesink-deadline-missed");
  rtf_test_sink_free (h, bus);
  bus = NULL;

  fail_unless_equals_int (g_list_length (missed), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-missed"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-late"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-received"), n);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-dropped"), 0);
  rtf_test_assert_accounting (st);
  /* latency figures: from n frames, ordered */
  fail_unless (rtf_test_stat_u64 (st, "latency-min") > 0);
  fail_unless (rtf_test_stat_u64 (st, "latency-min") <= rtf_test_stat_u64 (st,
          "latency-p50"));
  fail_unless (rtf_test_stat_u64 (st, "latency-p50") <= rtf_test_stat_u64 (st,
          "latency-p99"));
  fail_unless (rtf_test_stat_u64 (st, "latency-p99") <= rtf_test_stat_u64 (st,
          "latency-max"));
  fail_unless (rtf_test_stat_u64 (st,
          "device-latency-max") <= rtf_test_stat_u64 (st, "latency-max"));
  gst_structure_free (st);
  g_list_free_full (missed, (GDestroyNotify) gst_message_unref);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_deadline_late_completions)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("late.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=1000", caps, &bus);
  GList *late, *l;
  guint i, n = 10, seen = 0;

  for (i = 0; i < n; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  late = rtf_test_pop_messages (bus, "rtframesink-late-completion", NULL);
  rtf_test_sink_free (h, bus);
  fail_unless_equals_int (g_list_length (late), n);
  /* in completion order, which the device may change: each frame once */
  for (l = late; l; l = l->next) {
    GstMessage *msg = l->data;
    guint64 frame = rtf_test_msg_u64 (msg, "frame");

    fail_unless (frame < n && !(seen & (1u << frame)), "frame %"
        G_GUINT64_FORMAT " again or unknown", frame);
    seen |= 1u << frame;
    fail_unless_equals_int64 (rtf_test_msg_i64 (msg, "latency"),
        rtf_test_msg_i64 (msg, "completed") - rtf_test_msg_i64 (msg,
            "arrival"));
    fail_unless (rtf_test_msg_i64 (msg, "lateness") > 0);
  }
  fail_unless_equals_int (seen, (1u << n) - 1);
  g_list_free_full (late, (GDestroyNotify) gst_message_unref);
  g_free (path);
}

GST_END_TEST;

/* Each miss is seen before the frame's write completes: "detected" of the
 * deadline-missed message is earlier than "completed" of its
 * late-completion message (a miss noticed only at completion would carry
 * the completion time). */
GST_START_TEST (test_deadline_seen_before_completion)
{
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("order.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=1000", caps, &bus);
  GHashTable *detected = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, g_free);
  GstMessage *msg;
  guint i, n = 10, pairs = 0;

  for (i = 0; i < n; i++) {
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
    g_usleep (5000);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    gint64 *frame = g_new (gint64, 1);

    *frame = gst_message_has_name (msg, "rtframesink-stats") ? -1 :
        (gint64) rtf_test_msg_u64 (msg, "frame");
    if (gst_message_has_name (msg, "rtframesink-deadline-missed")) {
      gint64 *when = g_new (gint64, 1);

      *when = rtf_test_msg_i64 (msg, "detected");
      g_hash_table_insert (detected, frame, when);
    } else if (gst_message_has_name (msg, "rtframesink-late-completion")) {
      gint64 *when = g_hash_table_lookup (detected, frame);

      fail_unless (when != NULL, "completion before the miss");
      fail_unless (*when < rtf_test_msg_i64 (msg, "completed"), "frame %"
          G_GINT64_FORMAT ": miss seen only when written", *frame);
      pairs++;
      g_free (frame);
    } else {
      g_free (frame);
    }
    gst_message_unref (msg);
  }
  rtf_test_sink_free (h, bus);
  fail_unless_equals_int (pairs, n);
  g_hash_table_destroy (detected);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_generous_deadline_no_message)
{
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("gen.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=10000000000", caps, &bus);
  GstStructure *st;
  GList *missed;
  guint i;

  for (i = 0; i < 20; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = rtf_test_get_stats (h);
  missed = rtf_test_pop_element_messages (bus, "rtframesink-deadline-missed");
  rtf_test_sink_free (h, bus);
  fail_unless_equals_int (g_list_length (missed), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-missed"), 0);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 20);
  rtf_test_assert_accounting (st);
  gst_structure_free (st);
  g_free (path);
}

GST_END_TEST;

/* frame-messages: one message per frame written, in file order, whose
 * offsets and times agree with the file and with each other. */
GST_START_TEST (test_frame_written_messages)
{
  const gchar *caps = rtf_test_formats[2];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("written.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "frame-messages=true", caps, &bus);
  GList *msgs, *l;
  guint64 i = 0;

  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, i % 2 ? INPUT_POOL : INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  msgs = rtf_test_pop_element_messages (bus, "rtframesink-frame-written");
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, fsize, 0, 6);

  fail_unless_equals_int (g_list_length (msgs), 6);
  for (l = msgs, i = 0; l; l = l->next, i++) {
    const GstStructure *s = gst_message_get_structure (l->data);
    gint64 arrival, submitted, completed, latency, dev;
    gboolean copied, missed;

    fail_unless_equals_uint64 (rtf_test_stat_u64 (s, "frame"), i);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (s, "offset"), i * fsize);
    fail_unless_equals_uint64 (rtf_test_stat_u64 (s, "size"), fsize);
    fail_unless (gst_structure_get_int64 (s, "arrival", &arrival));
    fail_unless (gst_structure_get_int64 (s, "submitted", &submitted));
    fail_unless (gst_structure_get_int64 (s, "completed", &completed));
    fail_unless (gst_structure_get_int64 (s, "latency", &latency));
    fail_unless (gst_structure_get_int64 (s, "device-latency", &dev));
    fail_unless (arrival > 0 && arrival <= submitted && submitted <= completed);
    fail_unless_equals_int64 (latency, completed - arrival);
    fail_unless_equals_int64 (dev, completed - submitted);
    fail_unless (gst_structure_get_boolean (s, "missed", &missed));
    fail_unless (gst_structure_get_boolean (s, "copied", &copied));
    /* unaligned memory is copied, pool memory is not */
    fail_unless_equals_int (copied, i % 2 == 0);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  g_free (path);
}

GST_END_TEST;

/* Frames from the proposed pool live in memory the element registers with
 * its io_uring ring: as root (no RLIMIT_MEMLOCK) every one is written from
 * a fixed buffer, byte-exact; elsewhere registration may be refused and the
 * same bytes are written without. */
GST_START_TEST (test_registered_writes)
{
  const gchar *caps = rtf_test_formats[0];
  gsize fsize = rtf_test_frame_size (caps);
  gchar *path = rtf_test_tmp_path ("fixed.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "io-engine=io-uring", caps, &bus);
  GstStructure *st;
  guint64 i, registered;

  for (i = 0; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = rtf_test_get_stats (h);
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, fsize, 0, 8);
  registered = rtf_test_stat_u64 (st, "writes-registered");
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-zero-copy"), 8);
  if (rtf_test_is_root ())
    fail_unless (registered >= 8, "%" G_GUINT64_FORMAT " registered writes",
        registered);
  else if (registered == 0)
    GST_INFO ("registration refused (RLIMIT_MEMLOCK?): plain writes");
  gst_structure_free (st);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_stats_fields)
{
  static const gchar *const u64_fields[] = { "elapsed", "deadline",
    "frames-received", "frames-written", "frames-dropped", "frames-missed",
    "frames-late", "frames-lost", "frames-queued", "frames-in-flight",
    "bytes-written", "bytes-queued", "frames-zero-copy", "frames-copied",
    "frames-repacked", "writes-registered", "queue-high-water-bytes",
    "wait-total", "wait-max",
    "waits", "messages-lost", "latency-min", "latency-mean", "latency-max",
    "latency-stddev", "latency-p50", "latency-p99", "latency-p99.9",
    "latency-p99.99", "device-latency-min", "device-latency-mean",
    "device-latency-max", "device-latency-stddev", "device-latency-p50",
    "device-latency-p99", "device-latency-p99.9", "device-latency-p99.99"
  };
  const gchar *caps = rtf_test_formats[1];
  gchar *path = rtf_test_tmp_path ("stats.raw");
  GstBus *bus;
  GstHarness *h =
      rtf_test_sink_new (path, "stats-interval=20000000", caps, &bus);
  GstStructure *st;
  GList *periodic, *l;
  gdouble tp;
  guint i, hw;

  for (i = 0; i < 10; i++) {
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
    g_usleep (10000);
  }
  /* while running: consistent at every look */
  for (i = 0; i < 5; i++) {
    st = rtf_test_get_stats (h);
    rtf_test_assert_accounting (st);
    gst_structure_free (st);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  st = rtf_test_get_stats (h);
  periodic = rtf_test_pop_element_messages (bus, "rtframesink-stats");
  rtf_test_sink_free (h, bus);

  for (i = 0; i < G_N_ELEMENTS (u64_fields); i++)
    rtf_test_stat_u64 (st, u64_fields[i]);
  fail_unless (gst_structure_get_double (st, "throughput", &tp) && tp > 0);
  fail_unless (gst_structure_has_field_typed (st, "throughput-interval",
          G_TYPE_DOUBLE));
  fail_unless (gst_structure_get_uint (st, "queue-high-water-frames", &hw));
  fail_unless (hw >= 1 && hw <= 16);
  fail_unless_equals_string (gst_structure_get_string (st, "io-engine"),
      "io-uring");
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "frames-written"), 10);
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "bytes-written"),
      10 * rtf_test_frame_size (caps));
  fail_unless_equals_uint64 (rtf_test_stat_u64 (st, "deadline"),
      50 * GST_MSECOND);
  rtf_test_assert_accounting (st);
  /* periodic messages (every 20 ms over >100 ms) and the final one */
  fail_unless (g_list_length (periodic) >= 3, "%u stats messages",
      g_list_length (periodic));
  for (l = periodic; l; l = l->next)
    rtf_test_assert_accounting (gst_message_get_structure (l->data));
  g_list_free_full (periodic, (GDestroyNotify) gst_message_unref);
  gst_structure_free (st);
  g_free (path);
}

GST_END_TEST;

/* deadline may change while PLAYING: it applies to frames arriving after
 * the change. */
GST_START_TEST (test_deadline_changed_while_playing)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("chg.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "deadline=10000000000", caps, &bus);
  GList *missed, *l;
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  g_object_set (h->element, "deadline", (guint64) 1000, NULL);
  for (; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  missed = rtf_test_pop_element_messages (bus, "rtframesink-deadline-missed");
  rtf_test_sink_free (h, bus);
  fail_unless_equals_int (g_list_length (missed), 5);
  for (l = missed, i = 5; l; l = l->next, i++)
    fail_unless_equals_uint64 (rtf_test_msg_u64 (l->data, "frame"), i);
  g_list_free_full (missed, (GDestroyNotify) gst_message_unref);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 10);
  g_free (path);
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
  msg = gst_bus_timed_pop_filtered (bus, 2 * GST_SECOND *
      rtf_test_time_scale (), GST_MESSAGE_ELEMENT);
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

GST_START_TEST (test_thread_scheduling_refused_warns_once)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("sched.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "thread-cpus=63", caps, &bus);
  GstMessage *msg;
  guint i, warnings = 0;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
    GError *err = NULL;

    gst_message_parse_warning (msg, &err, NULL);
    fail_unless (strstr (err->message, "scheduling") != NULL);
    g_error_free (err);
    gst_message_unref (msg);
    warnings++;
  }
  fail_unless_equals_int (warnings, 1);
  fail_unless_equals_uint64 (rtf_test_get_u64 (h, "frames-written"), 5);
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 5);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_thread_cpus_applied)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("cpus.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, "thread-cpus=0", caps, &bus);

  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 0,
              INPUT_POOL)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);
  rtf_test_sink_free (h, bus);
  g_free (path);
}

GST_END_TEST;

/* ---- bad input and misuse -------------------------------------------- */

/* Empty buffers (with or without GAP) hold no frame and are skipped; a
 * GAP buffer with a frame's bytes is recorded like any frame. */
GST_START_TEST (test_empty_buffers)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("empty.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstBuffer *gap_frame = rtf_test_make_frame (h, caps, 1, INPUT_POOL);

  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 0,
              INPUT_POOL)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new ()), GST_FLOW_OK);
  GST_BUFFER_FLAG_SET (gap_frame, GST_BUFFER_FLAG_GAP);
  fail_unless_equals_int (gst_harness_push (h, gap_frame), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_if (gst_bus_have_pending (bus) && gst_bus_pop_filtered (bus,
          GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 2);
  g_free (path);
}

GST_END_TEST;

/* No framerate, or 0/1 (variable): recorded all the same */
GST_START_TEST (test_caps_without_framerate)
{
  static const gchar *const caps[] = {
    "video/x-raw,format=P010_10LE,width=64,height=48",
    "video/x-raw,format=P010_10LE,width=64,height=48,framerate=0/1",
  };
  guint c, i;

  for (c = 0; c < G_N_ELEMENTS (caps); c++) {
    gchar *path = rtf_test_tmp_path ("nofps.raw");
    GstBus *bus;
    GstHarness *h = rtf_test_sink_new (path, NULL, caps[c], &bus);

    for (i = 0; i < 5; i++)
      fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h,
                  caps[c], i, INPUT_POOL)), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    rtf_test_sink_free (h, bus);
    rtf_test_assert_file (path, rtf_test_frame_size (caps[c]), 0, 5);
    g_free (path);
  }
}

GST_END_TEST;

/* Caps that change the frame layout after the first frame are refused
 * with a STREAM/FORMAT error that says what changed; the file keeps the
 * frames before.  A change that keeps the layout (framerate) goes on. */
GST_START_TEST (test_caps_change_mid_stream)
{
  const gchar *caps = "video/x-raw,format=P010_10LE,width=64,height=48,"
      "framerate=20/1";
  gchar *path = rtf_test_tmp_path ("capschange.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstCaps *other;

  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 0,
              INPUT_POOL)), GST_FLOW_OK);
  /* same layout, another framerate: fine */
  gst_harness_set_src_caps_str (h, "video/x-raw,format=P010_10LE,width=64,"
      "height=48,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps, 1,
              INPUT_POOL)), GST_FLOW_OK);
  /* another size: refused */
  other = gst_caps_from_string ("video/x-raw,format=P010_10LE,width=32,"
      "height=48,framerate=30/1");
  /* (a sticky event is stored whatever the sink says) */
  gst_pad_push_event (h->srcpad, gst_event_new_caps (other));
  gst_caps_unref (other);
  assert_error (bus, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
      "P010_10LE 64x48 (9216 bytes a frame) to P010_10LE 32x48");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_new_allocate (NULL,
              4608, NULL)), GST_FLOW_NOT_NEGOTIATED);
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, 9216, 0, 2);
  g_free (path);
}

GST_END_TEST;

/* A flushing seek in the middle: the frames accepted before it are kept
 * (a recorder does not drop what it acknowledged), the later ones follow. */
GST_START_TEST (test_flush_mid_stream)
{
  const gchar *caps = rtf_test_formats[3];
  gchar *path = rtf_test_tmp_path ("flush.raw");
  GstBus *bus;
  GstHarness *h = rtf_test_sink_new (path, NULL, caps, &bus);
  GstSegment segment;
  guint i;

  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, rtf_test_make_frame (h, caps,
                i, INPUT_UNALIGNED)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_sink_free (h, bus);
  rtf_test_assert_file (path, rtf_test_frame_size (caps), 0, 6);
  g_free (path);
}

GST_END_TEST;

/* GObject refuses a value outside a property's range without calling the
 * element, and says so: as a WARNING before GLib 2.75, as a CRITICAL from
 * 2.75 on (GLib !2852, "Replace most GObject warnings with criticals";
 * Debian 12 has 2.74, Debian 13 2.84).  The suite runs with
 * G_DEBUG=fatal-criticals, so that message is expected, at the level the
 * running GLib logs it: any other message, or none, fails the test.  The
 * GParamSpec itself must refuse the value too (what GObject checks). */
static void
set_out_of_range (GstElement * el, const gchar * name, const GValue * value)
{
  GParamSpec *p = g_object_class_find_property (G_OBJECT_GET_CLASS (el), name);
  GLogLevelFlags level = glib_check_version (2, 75, 0) == NULL ?
      G_LOG_LEVEL_CRITICAL : G_LOG_LEVEL_WARNING;
  GValue v = G_VALUE_INIT;
  gchar *pattern;

  fail_unless (p != NULL, "no property %s", name);
  g_value_init (&v, p->value_type);
  fail_unless (g_value_transform (value, &v));
  fail_unless (g_param_value_validate (p, &v), "%s: the value is in range",
      name);
  g_value_unset (&v);

  pattern = g_strdup_printf ("*out of range for property*%s*", name);
  g_test_expect_message ("GLib-GObject", level, pattern);
  g_object_set_property (G_OBJECT (el), name, value);
  g_test_assert_expected_messages ();
  g_free (pattern);
}

static void
set_out_of_range_uint (GstElement * el, const gchar * name, guint64 value)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_UINT64);
  g_value_set_uint64 (&v, value);
  set_out_of_range (el, name, &v);
  g_value_unset (&v);
}

/* Values outside a property's range are refused, and the property keeps
 * its value. */
GST_START_TEST (test_out_of_range_properties)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GValue prio = G_VALUE_INIT;
  guint depth, n_buffers;
  guint64 deadline, stop_timeout;
  gint priority;

  set_out_of_range_uint (sink, "io-depth", 0);
  set_out_of_range_uint (sink, "io-depth", 65);
  set_out_of_range_uint (sink, "max-size-buffers", 0);
  g_value_init (&prio, G_TYPE_INT);
  g_value_set_int (&prio, 100);
  set_out_of_range (sink, "thread-priority", &prio);
  g_value_unset (&prio);
  set_out_of_range_uint (sink, "deadline", G_MAXUINT64);
  set_out_of_range_uint (sink, "stop-timeout", G_MAXUINT64);
  g_object_get (sink, "io-depth", &depth, "max-size-buffers", &n_buffers,
      "thread-priority", &priority, "deadline", &deadline, "stop-timeout",
      &stop_timeout, NULL);
  fail_unless_equals_int (depth, 4);
  fail_unless_equals_int (n_buffers, 16);
  fail_unless_equals_int (priority, 10);
  fail_unless_equals_uint64 (deadline, 50 * GST_MSECOND);
  fail_unless_equals_uint64 (stop_timeout, 5 * GST_SECOND);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
rtframesink_suite (void)
{
  Suite *s = suite_create ("rtframesink");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_byte_exact_pool, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_loop_test (tc, test_byte_exact_unaligned, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_loop_test (tc, test_byte_exact_pieces, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_loop_test (tc, test_byte_exact_strided, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_loop_test (tc, test_byte_exact_moved_planes, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_loop_test (tc, test_byte_exact_psync_buffered, 0,
      G_N_ELEMENTS (rtf_test_formats));
  tcase_add_test (tc, test_same_as_filesink);
  tcase_add_test (tc, test_playback_rawvideoparse);
  tcase_add_test (tc, test_zero_copy_with_pool);
  tcase_add_test (tc, test_copy_without_pool);
  tcase_add_test (tc, test_proposed_pool_alignment);
  tcase_add_test (tc, test_eos_file_complete);
  tcase_add_test (tc, test_eos_without_frames);
  tcase_add_test (tc, test_stop_writes_everything);
  tcase_add_test (tc, test_error_no_location);
  tcase_add_test (tc, test_error_unwritable);
  tcase_add_test (tc, test_error_wrong_size);
  tcase_add_test (tc, test_gap_buffer);
  tcase_add_test (tc, test_empty_buffers);
  tcase_add_test (tc, test_caps_without_framerate);
  tcase_add_test (tc, test_caps_change_mid_stream);
  tcase_add_test (tc, test_flush_mid_stream);
  tcase_add_test (tc, test_out_of_range_properties);
  tcase_add_test (tc, test_stream_status);
  tcase_add_test (tc, test_helper_threads_announced);
  tcase_add_test (tc, test_properties_locked_while_running);
  tcase_add_test (tc, test_caps_template);
  tcase_add_test (tc, test_bayer10);
  tcase_add_test (tc, test_newer_formats);
  tcase_add_test (tc, test_cycles_no_leaks);
  tcase_add_test (tc, test_eight_sinks_one_pipeline);
  tcase_add_test (tc, test_flush_unblocks_waiting_render);
  tcase_add_test (tc, test_deadline_every_frame_misses);
  tcase_add_test (tc, test_deadline_stats_agree);
  tcase_add_test (tc, test_deadline_late_completions);
  tcase_add_test (tc, test_deadline_seen_before_completion);
  tcase_add_test (tc, test_generous_deadline_no_message);
  tcase_add_test (tc, test_deadline_seen_while_render_waits);
  tcase_add_test (tc, test_deadline_changed_while_playing);
  tcase_add_test (tc, test_miss_during_stall_io_uring);
  tcase_add_test (tc, test_miss_during_stall_psync);
  tcase_add_test (tc, test_stop_bounded_on_stalled_output_io_uring);
  tcase_add_test (tc, test_stop_bounded_on_stalled_output_psync);
  tcase_add_test (tc, test_stats_fields);
  tcase_add_test (tc, test_frame_written_messages);
  tcase_add_test (tc, test_registered_writes);
  tcase_add_test (tc, test_leaky_upstream);
  tcase_add_test (tc, test_leaky_downstream);
  tcase_add_test (tc, test_thread_scheduling_refused_warns_once);
  tcase_add_test (tc, test_thread_cpus_applied);
  return s;
}

GST_CHECK_MAIN (rtframesink);
