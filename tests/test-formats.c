/* gst-check tests of the formats rtframesink records (issue 15): the
 * template is the running GStreamer's format table; a sample of every
 * family (8, 10, 12 and 16-bit, packed, planar, palette, Bayer) recorded
 * from videotestsrc through a tee beside filesink, byte-identical, and
 * played back by rtframesrc; frames with a GstVideoMeta whose pixel groups
 * reach past the first component (odd-width 4:2:2) or with a palette;
 * formats refused, with the reason naming them.  Real files in $TMPDIR. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "gstrtframecaps.h"
#include "rtf-crc32c.h"
#include "rtf-test-sink.h"
#include "rtf-test-util.h"

static gboolean
runtime_has_deep_bayer (void)
{
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || minor >= 24;
}

static GstCaps *
sink_template (void)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstCaps *tmpl = gst_pad_get_pad_template_caps (pad);

  gst_object_unref (pad);
  gst_object_unref (sink);
  return tmpl;
}

/* ---- the template ----------------------------------------------------- */

static gboolean
lays_out (GstVideoFormat format)
{
  GstVideoInfo info;

  return gst_video_info_set_format (&info, format, 64, 64)
      && GST_VIDEO_INFO_SIZE (&info) > 0;
}

/* video/x-raw: every format of the table that GStreamer lays out (all of
 * them on 1.22.0 and 1.26.2), the 10-bit ones first; video/x-bayer: the 4
 * 8-bit orders, and from 1.24 on 32 more (10/12/14/16 bits, le/be) */
GST_START_TEST (test_template)
{
  GstCaps *tmpl = sink_template ();
  const GValue *raw, *bayer;
  const GstVideoFormat *table;
  guint n, i, want = 0;
  gboolean ten_bit = TRUE;
  gchar *version;

  fail_unless_equals_int (gst_caps_get_size (tmpl), 2);
  raw = gst_structure_get_value (gst_caps_get_structure (tmpl, 0), "format");
  bayer = gst_structure_get_value (gst_caps_get_structure (tmpl, 1), "format");
  table = gst_video_formats_raw (&n);
  for (i = 0; i < n; i++)
    want += lays_out (table[i]);
  fail_unless_equals_int (gst_value_list_get_size (raw), want);
  for (i = 0; i < gst_value_list_get_size (raw); i++) {
    const gchar *name = g_value_get_string (gst_value_list_get_value (raw, i));
    GstVideoFormat f = gst_video_format_from_string (name);
    const GstVideoFormatInfo *finfo = gst_video_format_get_info (f);
    gboolean is10 = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 10;

    fail_unless (lays_out (f), "%s", name);
    fail_if (is10 && !ten_bit, "10-bit %s after other formats", name);
    ten_bit = is10;
  }
  fail_unless_equals_int (gst_value_list_get_size (bayer),
      runtime_has_deep_bayer ()? 36 : 4);
  version = gst_version_string ();
  g_print ("%s: %u of %u raw formats (first %s), %u Bayer\n", version,
      gst_value_list_get_size (raw), n,
      g_value_get_string (gst_value_list_get_value (raw, 0)),
      gst_value_list_get_size (bayer));
  g_free (version);
  gst_caps_unref (tmpl);
}

GST_END_TEST;

/* ---- each family beside filesink ------------------------------------- */

typedef struct
{
  const gchar *caps;
  guint frames;
  gboolean deep_bayer;          /* needs GStreamer 1.24+ */
} Sample;

/* Odd sizes where rows are padded (33: 4-byte row alignment, 4:2:0 and
 * 4:2:2 chroma of half a pixel more) */
static const Sample samples[] = {
  /* 8-bit: planar, semi-planar, packed 24 and 32 bits, 4:2:2 packed,
   * palette */
  {"video/x-raw,format=GRAY8,width=33,height=7", 10},
  {"video/x-raw,format=I420,width=33,height=7", 10},
  {"video/x-raw,format=NV12,width=33,height=7", 10},
  {"video/x-raw,format=RGB,width=33,height=7", 10},
  {"video/x-raw,format=BGRx,width=64,height=48", 10},
  {"video/x-raw,format=YUY2,width=33,height=7", 10},
  {"video/x-raw,format=UYVY,width=34,height=8", 10},
  {"video/x-raw,format=RGB8P,width=33,height=7", 10},
  /* 10-bit, still the case the sink is made for */
  {"video/x-raw,format=P010_10LE,width=33,height=7", 10},
  {"video/x-raw,format=v210,width=33,height=7", 10},
  {"video/x-raw,format=I420_10LE,width=33,height=7", 10},
  /* 12-bit */
  {"video/x-raw,format=I420_12LE,width=33,height=7", 10},
  {"video/x-raw,format=Y444_12LE,width=33,height=7", 10},
  /* 16-bit: the camera's Mono16 at its size, big-endian, 5:6:5, 64-bit */
  {"video/x-raw,format=GRAY16_LE,width=2048,height=928", 5},
  {"video/x-raw,format=GRAY16_BE,width=33,height=7", 10},
  {"video/x-raw,format=RGB16,width=33,height=7", 10},
  {"video/x-raw,format=AYUV64,width=33,height=7", 10},
  {"video/x-raw,format=ARGB64,width=33,height=7", 10},
  /* Bayer: 8-bit everywhere, 10 to 16 bits from 1.24 */
  {"video/x-bayer,format=bggr,width=33,height=7", 10},
  {"video/x-bayer,format=rggb,width=640,height=480", 5},
  {"video/x-bayer,format=bggr10le,width=33,height=7", 10, TRUE},
  {"video/x-bayer,format=gbrg12be,width=33,height=7", 10, TRUE},
  {"video/x-bayer,format=grbg14le,width=34,height=8", 10, TRUE},
  {"video/x-bayer,format=rggb16le,width=33,height=7", 10, TRUE},
};

/* The frame size worked out here, not by the sink: GstVideoInfo for raw
 * video; GST_ROUND_UP_4 (width) samples of 1 or 2 bytes a row for Bayer
 * (videotestsrc's and bayer2rgb's layout) */
static gsize
expected_frame_size (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  gsize size;

  if (gst_structure_has_name (s, "video/x-bayer")) {
    gint w = 0, h = 0;
    gsize bytes = strlen (gst_structure_get_string (s, "format")) == 4 ? 1 : 2;

    gst_structure_get_int (s, "width", &w);
    gst_structure_get_int (s, "height", &h);
    size = GST_ROUND_UP_4 (w) * bytes * h;
  } else {
    GstVideoInfo info;

    fail_unless (gst_video_info_from_caps (&info, caps));
    size = GST_VIDEO_INFO_SIZE (&info);
  }
  gst_caps_unref (caps);
  return size;
}

static void
assert_size (const gchar * path, guint64 size)
{
  struct stat sb;

  fail_unless (g_stat (path, &sb) == 0, "no %s", path);
  fail_unless_equals_uint64 (sb.st_size, size);
}

static void
record_beside_filesink (const Sample * sm, const gchar * a, const gchar * b)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=snow "
      "! %s,framerate=20/1 ! tee name=t t. ! queue ! rtframesink name=r "
      "location=%s t. ! queue ! filesink location=%s", sm->frames, sm->caps,
      a, b);
  GstElement *pipe = rtf_test_play_to_eos (desc);
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  guint64 written = 0;

  g_object_get (r, "frames-written", &written, NULL);
  fail_unless_equals_uint64 (written, sm->frames);
  gst_object_unref (r);
  rtf_test_stop_pipeline (pipe);
  g_free (desc);
}

static void
play_back (const gchar * recording, const gchar * out)
{
  gchar *desc = g_strdup_printf ("rtframesrc location=%s ! filesink "
      "location=%s", recording, out);

  rtf_test_stop_pipeline (rtf_test_play_to_eos (desc));
  g_free (desc);
}

/* The same videotestsrc frames through a tee to rtframesink and filesink:
 * the files are identical, of frames x the expected size; rtframesrc plays
 * the recording back as the same bytes */
GST_START_TEST (test_same_as_filesink)
{
  const Sample *sm = &samples[__i__];
  gchar *a, *b, *c;

  if (sm->deep_bayer && !runtime_has_deep_bayer ()) {
    g_print ("%s: skipped: GStreamer before 1.24 has no such format "
        "(test_refused checks it is refused)\n", sm->caps);
    return;
  }
  a = rtf_test_tmp_path ("rtframesink.raw");
  b = rtf_test_tmp_path ("filesink.raw");
  c = rtf_test_tmp_path ("rtframesrc.raw");
  record_beside_filesink (sm, a, b);
  assert_size (b, sm->frames * expected_frame_size (sm->caps));
  rtf_test_assert_same_bytes (a, b);
  play_back (a, c);
  rtf_test_assert_same_bytes (c, b);
  g_print ("%s: %u frames of %" G_GSIZE_FORMAT " bytes, as filesink's\n",
      sm->caps, sm->frames, expected_frame_size (sm->caps));
  g_free (a);
  g_free (b);
  g_free (c);
}

GST_END_TEST;

/* ---- frames with a GstVideoMeta --------------------------------------- */

typedef struct
{
  const gchar *caps;
  /* bytes of each plane's rows that hold pixels (the rest of the default
   * stride is padding); -1: the plane is copied whole (a palette) */
  gint pixels[2];
} Strided;

static const Strided strided[] = {
  /* 17 pixel groups of 4 (YUY2) or 8 (Y210) bytes: the last group's V
   * sample lies past the 33rd Y sample */
  {"video/x-raw,format=YUY2,width=33,height=7", {68}},
  {"video/x-raw,format=Y210,width=33,height=7", {136}},
  /* 2045 indices in rows of 2048, then 256 palette entries of 4 bytes:
   * copied as 2 rows of 2045 samples of 4 bytes (stride 4) the palette
   * ran 7160 bytes past the frame's end (heap-buffer-overflow under
   * tools/test.sh --sanitize) */
  {"video/x-raw,format=RGB8P,width=2045,height=2", {2045, -1}},
};

/* Frame `seq` in its default layout, pattern bytes everywhere (the row
 * padding too), and what the file must hold for it: the same with the row
 * padding zero */
static GstBuffer *
tight_frame (const GstVideoInfo * info, const Strided * st, guint64 seq,
    guint8 ** expected)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  guint8 *e = g_malloc (info->size);
  guint p;
  gint row;

  rtf_test_fill_frame (e, info->size, 0, seq);
  gst_buffer_fill (buf, 0, e, info->size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++)
    for (row = 0; st->pixels[p] >= 0 && row < info->height; row++)
      memset (e + info->offset[p] + (gsize) row * info->stride[p] +
          st->pixels[p], 0, info->stride[p] - st->pixels[p]);
  *expected = e;
  return buf;
}

/* `tight` in a layout of rows 16 bytes longer, planes 64 bytes apart,
 * 0xab around them, described by a GstVideoMeta (a palette keeps its
 * stride) */
static GstBuffer *
padded_frame (const GstVideoInfo * info, const Strided * st, GstBuffer * tight)
{
  gsize offset[GST_VIDEO_MAX_PLANES], at = 0;
  gint stride[GST_VIDEO_MAX_PLANES];
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 2 * info->size + 4096, NULL);
  GstMapInfo in, out;
  guint p;
  gint row;

  gst_buffer_memset (buf, 0, 0xab, gst_buffer_get_size (buf));
  fail_unless (gst_buffer_map (tight, &in, GST_MAP_READ));
  fail_unless (gst_buffer_map (buf, &out, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gboolean whole = st->pixels[p] < 0;
    gint rows = whole ? 1 : info->height;
    gsize len = whole ? 1024 : (gsize) info->stride[p];

    offset[p] = at + 64;
    stride[p] = info->stride[p] + (whole ? 0 : 16);
    for (row = 0; row < rows; row++)
      memcpy (out.data + offset[p] + (gsize) row * stride[p],
          in.data + info->offset[p] + (gsize) row * info->stride[p], len);
    at = offset[p] + (gsize) rows *stride[p] + (whole ? 1024 : 0);
  }
  gst_buffer_unmap (buf, &out);
  gst_buffer_unmap (tight, &in);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
      GST_VIDEO_INFO_N_PLANES (info), offset, stride);
  gst_buffer_unref (tight);
  return buf;
}

/* The file holds each frame's pixels in the default layout, its row
 * padding zero, every byte of a 4:2:2 row's last pixel group and the whole
 * palette */
GST_START_TEST (test_strided)
{
  const Strided *st = &strided[__i__];
  GstCaps *caps = gst_caps_from_string (st->caps);
  gchar *path = rtf_test_tmp_path ("strided.raw"), *data = NULL;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h;
  gsize len = 0;
  guint64 repacked = 0;
  guint i;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  h = rtf_test_sink_new (path, NULL, st->caps, &bus);
  for (i = 0; i < 3; i++) {
    guint8 *expected;
    GstBuffer *tight = tight_frame (&info, st, i, &expected);

    fail_unless_equals_int (gst_harness_push (h, padded_frame (&info, st,
                tight)), GST_FLOW_OK);
    g_free (expected);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  rtf_test_assert_no_message (bus, GST_MESSAGE_ERROR);
  fail_unless (g_file_get_contents (path, &data, &len, NULL));
  fail_unless_equals_uint64 (len, 3 * info.size);
  for (i = 0; i < 3; i++) {
    guint8 *expected;

    gst_buffer_unref (tight_frame (&info, st, i, &expected));
    fail_unless (memcmp (data + i * info.size, expected, info.size) == 0,
        "%s: frame %u differs", st->caps, i);
    g_free (expected);
  }
  g_object_get (h->element, "frames-repacked", &repacked, NULL);
  fail_unless_equals_uint64 (repacked, 3);
  rtf_test_sink_free (h, bus);
  g_free (data);
  g_free (path);
}

GST_END_TEST;

/* ---- refused ---------------------------------------------------------- */

/* Names the running GStreamer does not know, formats without a frame
 * layout of their own (ENCODED; DMA_DRM, which 1.26 parses with size 0),
 * Bayer names no GStreamer has; 10-bit Bayer before 1.24 */
static const gchar *const refused[] = {
  "video/x-raw,format=NOSUCH,width=64,height=48,framerate=20/1",
  "video/x-raw,format=ENCODED,width=64,height=48,framerate=20/1",
  "video/x-raw,format=DMA_DRM,width=64,height=48,framerate=20/1",
  "video/x-bayer,format=bggr11le,width=64,height=48,framerate=20/1",
  "video/x-bayer,format=bggr10,width=64,height=48,framerate=20/1",
  "video/x-bayer,format=bggr10le,width=64,height=48,framerate=20/1",
};

static void
assert_refused (GstPad * pad, const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  const gchar *name = gst_structure_get_string (gst_caps_get_structure (caps,
          0), "format");
  GstRtFrameFormat format;
  gchar *why = NULL;

  fail_if (gst_pad_query_accept_caps (pad, caps), "%s taken", caps_str);
  fail_if (gst_rtframe_format_from_caps_full (&format, caps, &why));
  fail_unless (why != NULL && strstr (why, name) != NULL, "%s: %s", name, why);
  g_print ("refused: %s\n", why);
  g_free (why);
  gst_caps_unref (caps);
}

/* The sink pad refuses them (not-negotiated upstream: nothing recorded),
 * and the reason names the format */
GST_START_TEST (test_refused)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  guint i, n = G_N_ELEMENTS (refused) - (runtime_has_deep_bayer ()? 1 : 0);

  for (i = 0; i < n; i++)
    assert_refused (pad, refused[i]);
  gst_object_unref (pad);
  gst_object_unref (sink);
}

GST_END_TEST;

/* In a pipeline: upstream stops with not-negotiated before any frame, the
 * file is left without frames */
GST_START_TEST (test_refused_in_pipeline)
{
  gchar *path = rtf_test_tmp_path ("refused.raw");
  gchar *desc = g_strdup_printf ("appsrc name=src caps=\"%s\" format=time "
      "! rtframesink name=r location=%s", refused[0], path);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
  GstFlowReturn ret = GST_FLOW_OK;
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 4096, NULL);
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;
  guint64 written = 1;
  guint warned = 0;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  /* (the action signal does not take the buffer) */
  g_signal_emit_by_name (src, "push-buffer", buf, &ret);
  gst_buffer_unref (buf);
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  /* the sink names the format it refused, once; upstream stops with
   * not-negotiated (popping by type drops the others: both at once) */
  while ((msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
              10 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING)) != NULL
      && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
    fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (r));
    fail_if (warned++, "the refusal was told twice");
    gst_message_parse_warning (msg, &err, &dbg);
    fail_unless (err->domain == GST_STREAM_ERROR
        && err->code == GST_STREAM_ERROR_FORMAT);
    fail_unless (strstr (err->message, "NOSUCH") != NULL, "%s", err->message);
    g_print ("%s: %s\n", GST_MESSAGE_SRC_NAME (msg), err->message);
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  fail_unless_equals_int (warned, 1);
  fail_unless (msg != NULL && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (strstr (dbg, "not-negotiated") != NULL, "%s", dbg);
  g_print ("%s: %s (%s)\n", GST_MESSAGE_SRC_NAME (msg), err->message, dbg);
  g_object_get (r, "frames-written", &written, NULL);
  fail_unless_equals_uint64 (written, 0);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_object_unref (src);
  gst_object_unref (r);
  rtf_test_stop_pipeline (pipe);
  g_free (desc);
  g_free (path);
}

GST_END_TEST;

/* Caps of a known format whose frame is larger than the sink records
 * (2 GiB) pass the template: set_caps refuses them with STREAM/FORMAT,
 * the caps (and so the format) in the debug text */
GST_START_TEST (test_too_large)
{
  const gchar *caps_str = "video/x-raw,format=GRAY16_LE,width=65536,"
      "height=32768,framerate=20/1";
  gchar *path = rtf_test_tmp_path ("large.raw"), *why = NULL;
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstCaps *bayer = gst_caps_from_string ("video/x-bayer,format=bggr,"
      "width=65536,height=32769");
  GstRtFrameFormat format;
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL;
  GstBus *bus;
  GstHarness *h;

  /* 4 GiB: GStreamer 1.22 already refuses to lay it out */
  fail_if (gst_rtframe_format_from_caps_full (&format, caps, &why));
  fail_unless (strstr (why, "GRAY16_LE") != NULL, "%s", why);
  g_print ("refused: %s\n", why);
  g_free (why);
  /* 64 KiB more than 2 GiB, laid out by rtframe */
  fail_if (gst_rtframe_format_from_caps_full (&format, bayer, &why));
  fail_unless (strstr (why, "bggr frame of 65536x32769 would be "
          "2147549184 bytes") != NULL, "%s", why);
  g_print ("refused: %s\n", why);
  gst_caps_unref (bayer);
  h = rtf_test_sink_new (path, NULL, caps_str, &bus);
  msg = gst_bus_timed_pop_filtered (bus, 5 * GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (g_error_matches (err, GST_STREAM_ERROR,
          GST_STREAM_ERROR_FORMAT), "%s", err->message);
  fail_unless (strstr (dbg, "GRAY16_LE") != NULL, "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  rtf_test_sink_free (h, bus);
  gst_caps_unref (caps);
  g_free (why);
  g_free (path);
}

GST_END_TEST;

/* The format text in an index header replaced by another of the same
 * length, the header's CRC32C (at 60, over header_size bytes with the
 * field zero) made right again */
static void
rewrite_index_format (const gchar * idx, const gchar * from, const gchar * to)
{
  gchar *data = NULL, *at;
  gsize len = 0;
  guint32 header_size, crc;

  fail_unless_equals_int (strlen (from), strlen (to));
  fail_unless (g_file_get_contents (idx, &data, &len, NULL));
  memcpy (&header_size, data + 12, 4);
  header_size = GUINT32_FROM_LE (header_size);
  fail_unless (header_size <= len);
  /* memmem: the header holds the file's name, then a NUL, then the caps */
  at = memmem (data, header_size, from, strlen (from));
  fail_unless (at != NULL, "no %s in the header of %s", from, idx);
  memcpy (at, to, strlen (to));
  memset (data + 60, 0, 4);
  crc = GUINT32_TO_LE (rtf_crc32c (0, (const guint8 *) data, header_size));
  memcpy (data + 60, &crc, 4);
  fail_unless (g_file_set_contents (idx, data, len, NULL));
  g_free (data);
}

/* rtframesrc meets caps in an index that it cannot play: STREAM/FORMAT,
 * the message naming the format and why */
GST_START_TEST (test_src_refuses_index_caps)
{
  gchar *path = rtf_test_tmp_path ("p016.raw");
  gchar *idx = g_strconcat (path, ".idx", NULL);
  GstElement *src = gst_element_factory_make ("rtframesrc", NULL);
  GstBus *bus = gst_bus_new ();

  rtf_test_record (path, NULL, "video/x-raw,format=P016_LE,width=16,"
      "height=4,framerate=20/1", 3);
  rewrite_index_format (idx, "P016_LE", "DMA_DRM");
  gst_element_set_bus (src, bus);
  g_object_set (src, "location", path, NULL);
  fail_unless_equals_int (gst_element_set_state (src, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  rtf_test_assert_message (bus, GST_MESSAGE_ERROR, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FORMAT, "format \"DMA_DRM\"");
  gst_element_set_state (src, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (src);
  g_free (idx);
  g_free (path);
}

GST_END_TEST;

static Suite *
formats_suite (void)
{
  Suite *s = suite_create ("formats");
  TCase *tc = tcase_create ("general");

  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  tcase_add_test (tc, test_template);
  tcase_add_loop_test (tc, test_same_as_filesink, 0, G_N_ELEMENTS (samples));
  tcase_add_loop_test (tc, test_strided, 0, G_N_ELEMENTS (strided));
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_refused_in_pipeline);
  tcase_add_test (tc, test_too_large);
  tcase_add_test (tc, test_src_refuses_index_caps);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (formats);
