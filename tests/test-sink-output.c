/* gst-check tests of rtframesink's output: every input layout byte-exact,
 * the same bytes as filesink, zero copy, the file complete at EOS.  Real
 * files in $TMPDIR, no fake writer. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <fcntl.h>
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

static Suite *
sink_output_suite (void)
{
  Suite *s = suite_create ("sink-output");
  TCase *tc;

  tc = rtf_test_tcase (s, "byte-exact");
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
  tcase_add_test (tc, test_bayer10);
  tcase_add_test (tc, test_newer_formats);

  tc = rtf_test_tcase (s, "zero-copy");
  tcase_add_test (tc, test_zero_copy_with_pool);
  tcase_add_test (tc, test_copy_without_pool);
  tcase_add_test (tc, test_proposed_pool_alignment);

  tc = rtf_test_tcase (s, "eos");
  tcase_add_test (tc, test_eos_file_complete);
  tcase_add_test (tc, test_eos_without_frames);
  tcase_add_test (tc, test_stop_writes_everything);
  return s;
}

GST_CHECK_MAIN (sink_output);
