/* rtframe tests: an rtframesink fed by a GstHarness, with a bus of its own */
#include "rtf-test-sink.h"

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <string.h>

#include "rtf-test-util.h"

/* rtframesink recording to `location` with `props` ("name=value ..."), a
 * bus set before the harness starts it (so start-time messages are kept),
 * and the harness's source pad sending `caps`. */
/* Sets "name=value ..." on e */
static void
set_props (GstElement * e, const gchar * props)
{
  gchar **kv;
  guint i;

  if (props == NULL)
    return;
  kv = g_strsplit (props, " ", -1);
  for (i = 0; kv[i]; i++) {
    gchar **p;

    if (kv[i][0] == '\0')       /* two spaces, or one at an end */
      continue;
    p = g_strsplit (kv[i], "=", 2);

    gst_util_set_object_arg (G_OBJECT (e), p[0], p[1]);
    g_strfreev (p);
  }
  g_strfreev (kv);
}

GstHarness *
rtf_test_sink_new (const gchar * location, const gchar * props,
    const gchar * caps, GstBus ** bus)
{
  return rtf_test_sink_new_full (location, props, caps, NULL, NULL, bus);
}

GstHarness *
rtf_test_sink_new_full (const gchar * location, const gchar * props,
    const gchar * caps, GstBusSyncHandler handler, gpointer data, GstBus ** bus)
{
  GstElement *sink = gst_element_factory_make ("rtframesink", NULL);
  GstHarness *h;

  fail_unless (sink != NULL);
  g_object_set (sink, "location", location, NULL);
  set_props (sink, props);
  *bus = gst_bus_new ();
  if (handler)
    gst_bus_set_sync_handler (*bus, handler, data, NULL);
  gst_element_set_bus (sink, *bus);
  h = gst_harness_new_with_element (sink, "sink", NULL);
  gst_object_unref (sink);
  gst_harness_set_src_caps_str (h, caps);
  return h;
}

/* Drops the messages still on the bus first: they hold references to the
 * element, which holds the bus. */
void
rtf_test_sink_free (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

/* ---- a recording fed frame by frame (Rec) ---------------------------- */


Rec *
rtf_test_rec_start (const gchar * location, const gchar * props,
    const gchar * caps)
{
  Rec *r = g_new0 (Rec, 1);
  GstVideoInfo info;
  GstCaps *c = gst_caps_from_string (caps);

  fail_unless (gst_video_info_from_caps (&info, c));
  gst_caps_unref (c);
  r->frame_size = GST_VIDEO_INFO_SIZE (&info);
  r->location = g_strdup (location);
  r->h = rtf_test_sink_new (location, props, caps, &r->bus);
  return r;
}

GstFlowReturn
rtf_test_rec_push (Rec * r, guint stream, guint64 seq)
{
  GstBuffer *buf = gst_harness_create_buffer (r->h, r->frame_size);
  GstMapInfo map;

  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  rtf_test_fill_frame (map.data, r->frame_size, stream, seq);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = seq * GST_SECOND / 20;
  return gst_harness_push (r->h, buf);
}

guint64
rtf_test_rec_u64 (Rec * r, const gchar * prop)
{
  guint64 v;

  g_object_get (r->h->element, prop, &v, NULL);
  return v;
}

void
rtf_test_rec_stop (Rec * r)
{
  rtf_test_sink_free (r->h, r->bus);
  g_free (r->location);
  g_free (r);
}

/* The next message of `type` (ERROR or WARNING): its domain, code, and the
 * text contains `substr`.  (Waits a little for one posted by another
 * thread, the writer's.) */
void
rtf_test_assert_message (GstBus * bus, GstMessageType type, GQuark domain,
    gint code, const gchar * substr)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus,
      5 * GST_SECOND * rtf_test_time_scale (), type);
  GError *err = NULL;
  gchar *dbg = NULL;

  fail_unless (msg != NULL, "no %s posted", gst_message_type_get_name (type));
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, &dbg);
  else
    gst_message_parse_warning (msg, &err, &dbg);
  fail_unless (err->domain == domain, "domain %s",
      g_quark_to_string (err->domain));
  fail_unless_equals_int (err->code, code);
  if (substr)
    fail_unless (strstr (err->message, substr) != NULL, "'%s' not in '%s'",
        substr, err->message);
  g_print ("  %s: %s\n", gst_message_type_get_name (type), err->message);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (msg);
}

void
rtf_test_assert_no_message (GstBus * bus, GstMessageType type)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, type);

  if (msg) {
    GError *err = NULL;

    if (type == GST_MESSAGE_ERROR)
      gst_message_parse_error (msg, &err, NULL);
    else
      gst_message_parse_warning (msg, &err, NULL);
    fail ("unexpected %s: %s", gst_message_type_get_name (type), err->message);
  }
}

void
rtf_test_assert_file (const gchar * path, gsize frame_size, guint stream,
    guint64 n)
{
  gchar *err = rtf_test_check_file (path, frame_size, stream, n);

  fail_unless (err == NULL, "%s: %s", path, err);
}

void
rtf_test_assert_frames (const gchar * path, gsize size, guint64 from, guint64 n)
{
  gchar *data = NULL;
  gsize len = 0;
  guint8 *want = g_malloc (size);
  guint64 i;

  fail_unless (g_file_get_contents (path, &data, &len, NULL), "no %s", path);
  fail_unless_equals_uint64 (len, n * size);
  for (i = 0; i < n; i++) {
    rtf_test_fill_frame (want, size, 0, from + i);
    fail_unless (memcmp (want, data + i * size, size) == 0, "%s: frame %"
        G_GUINT64_FORMAT " differs", path, from + i);
  }
  g_free (want);
  g_free (data);
}

void
rtf_test_record (const gchar * location, const gchar * props,
    const gchar * caps, guint64 frames)
{
  Rec *r = rtf_test_rec_start (location, props, caps);
  guint64 i;

  for (i = 0; i < frames; i++)
    fail_unless_equals_int (rtf_test_rec_push (r, 0, i), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  rtf_test_assert_no_message (r->bus, GST_MESSAGE_ERROR);
  rtf_test_rec_stop (r);
}

/* An element of `factory` with `location` and `props` ("name=value ...")
 * fails to start (NULL -> PAUSED), posting a RESOURCE error `code` whose
 * text contains `substr`. */
void
rtf_test_assert_start_fails (const gchar * factory, const gchar * location,
    const gchar * props, gint code, const gchar * substr)
{
  GstElement *e = gst_element_factory_make (factory, NULL);
  GstBus *bus = gst_bus_new ();

  fail_unless (e != NULL);
  gst_element_set_bus (e, bus);
  g_object_set (e, "location", location, NULL);
  set_props (e, props);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  rtf_test_assert_message (bus, GST_MESSAGE_ERROR, GST_RESOURCE_ERROR, code,
      substr);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  gst_object_unref (e);
}

/* ---- pipelines and their files --------------------------------------- */

GstElement *
rtf_test_play_to_eos (const gchar * desc)
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstMessage *msg;

  fail_unless (pipe != NULL, "%s: %s", desc, error ? error->message : "");
  g_clear_error (&error);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe),
      GST_CLOCK_TIME_NONE, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &error, &dbg);
    fail ("%s: %s (%s)", desc, error->message, dbg);
  }
  gst_message_unref (msg);
  return pipe;
}

void
rtf_test_stop_pipeline (GstElement * pipe)
{
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

void
rtf_test_assert_same_bytes (const gchar * path, const gchar * ref)
{
  gchar *a = NULL, *b = NULL;
  gsize la, lb, i, at = 0, n = 0;

  fail_unless (g_file_get_contents (path, &a, &la, NULL), "no %s", path);
  fail_unless (g_file_get_contents (ref, &b, &lb, NULL), "no %s", ref);
  fail_unless (lb > 0, "%s is empty", ref);
  fail_unless_equals_uint64 (la, lb);
  for (i = 0; i < la; i++)
    if (a[i] != b[i] && n++ == 0)
      at = i;
  fail_unless (n == 0, "%s differs from %s: %" G_GSIZE_FORMAT " of %"
      G_GSIZE_FORMAT " bytes, the first at %" G_GSIZE_FORMAT, path, ref, n,
      la, at);
  g_free (a);
  g_free (b);
}

/* ---- the element tests' frames: 8 formats, 5 layouts ----------------- */

const gchar *const rtf_test_formats[8] = {
  "video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1",
  "video/x-raw,format=P010_10LE,width=1920,height=1080,framerate=20/1",
  "video/x-raw,format=v210,width=1280,height=720,framerate=30/1",
  "video/x-raw,format=I420_10LE,width=33,height=7,framerate=20/1",
  "video/x-raw,format=UYVP,width=1,height=1,framerate=0/1",
  "video/x-raw,format=Y210,width=100,height=37,framerate=60/1",
  "video/x-raw,format=NV12_10LE40,width=640,height=10,framerate=20/1",
  "video/x-raw,format=GBR_10LE,width=13,height=11,framerate=20/1",
};

gsize
rtf_test_frame_size (const gchar * caps_str)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  return GST_VIDEO_INFO_SIZE (&info);
}

static void
free_block (gpointer p)
{
  g_free (p);
}

static void
append_copy (GstBuffer * buf, const guint8 * data, gsize len)
{
  gpointer copy = g_memdup2 (data, len);

  gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, copy, len, 0,
          len, copy, g_free));
}

/* `tight` (in the default layout of `info`; taken) copied into a layout
 * described by GstVideoMeta: each plane 128 bytes after the previous one
 * ends, rows `pad` bytes longer than the default, the bytes around the
 * planes 0xab. */
static GstBuffer *
relayout (const GstVideoInfo * info, GstBuffer * tight, gint pad)
{
  GstVideoInfo other = *info;
  GstVideoFrame in, out;
  GstBuffer *buf;
  gsize offset = 0;
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++) {
    gint rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (info->finfo, i,
        GST_VIDEO_INFO_HEIGHT (info));

    other.stride[i] = info->stride[i] + pad;
    other.offset[i] = offset + 128;
    offset = other.offset[i] + (gsize) other.stride[i] * rows;
  }
  other.size = offset + 32;
  buf = gst_buffer_new_allocate (NULL, other.size, NULL);
  gst_buffer_memset (buf, 0, 0xab, other.size);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      other.offset, other.stride);
  fail_unless (gst_video_frame_map (&in, info, tight, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out, &other, buf, GST_MAP_WRITE));
  fail_unless (gst_video_frame_copy (&out, &in));
  gst_video_frame_unmap (&out);
  gst_video_frame_unmap (&in);
  gst_buffer_unref (tight);
  return buf;
}

/* Frame `seq` of stream 0 in the layout `kind`; its tight bytes are
 * rtf_test_fill_frame()'s. */
GstBuffer *
rtf_test_make_frame (GstHarness * h, const gchar * caps_str, guint64 seq,
    InputKind kind)
{
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstVideoInfo info;
  GstBuffer *buf = NULL;
  GstMapInfo map;
  gsize size;

  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  size = GST_VIDEO_INFO_SIZE (&info);

  switch (kind) {
    case INPUT_POOL:
      buf = gst_harness_create_buffer (h, size);
      fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
      rtf_test_fill_frame (map.data, size, 0, seq);
      gst_buffer_unmap (buf, &map);
      break;
    case INPUT_UNALIGNED:{
      guint8 *mem = g_malloc (size + 64);
      guint8 *data = mem + 1 + (((guintptr) mem) % 2 == 0 ? 0 : 1);

      rtf_test_fill_frame (data, size, 0, seq);
      buf = gst_buffer_new_wrapped_full (0, mem, size + 64, data - mem,
          size, mem, free_block);
      break;
    }
    case INPUT_PIECES:{
      guint8 *all = g_malloc (size);
      gsize a = size / 3, b = size / 3;

      rtf_test_fill_frame (all, size, 0, seq);
      buf = gst_buffer_new ();
      append_copy (buf, all, a);
      append_copy (buf, all + a, b);
      append_copy (buf, all + a + b, size - a - b);
      g_free (all);
      break;
    }
    case INPUT_STRIDED:
    case INPUT_MOVED:
      buf = gst_buffer_new_allocate (NULL, size, NULL);
      fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
      rtf_test_fill_frame (map.data, size, 0, seq);
      gst_buffer_unmap (buf, &map);
      buf = relayout (&info, buf, kind == INPUT_STRIDED ? 64 : 0);
      break;
  }
  GST_BUFFER_PTS (buf) = seq * GST_SECOND / 20;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 20;
  return buf;
}

/* ---- bus messages, statistics ---------------------------------------- */

guint64
rtf_test_get_u64 (GstHarness * h, const gchar * prop)
{
  guint64 v = 0;

  g_object_get (h->element, prop, &v, NULL);
  return v;
}

/* Pops every message from the bus: returns the element messages named
 * `name`; the QoS messages go to *qos when given; others are dropped. */
GList *
rtf_test_pop_messages (GstBus * bus, const gchar * name, GList ** qos)
{
  GList *list = NULL;
  GstMessage *msg;

  while ((msg = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT
        && gst_message_has_name (msg, name))
      list = g_list_append (list, msg);
    else if (qos && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_QOS)
      *qos = g_list_append (*qos, msg);
    else
      gst_message_unref (msg);
  }
  return list;
}

GList *
rtf_test_pop_element_messages (GstBus * bus, const gchar * name)
{
  return rtf_test_pop_messages (bus, name, NULL);
}

guint64
rtf_test_stat_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

/* received = written + dropped + lost + discarded + held for pre-record +
 * queued + in flight */
void
rtf_test_assert_accounting (const GstStructure * s)
{
  fail_unless_equals_uint64 (rtf_test_stat_u64 (s, "frames-received"),
      rtf_test_stat_u64 (s, "frames-written") + rtf_test_stat_u64 (s,
          "frames-dropped") + rtf_test_stat_u64 (s,
          "frames-lost") + rtf_test_stat_u64 (s,
          "frames-discarded") + rtf_test_stat_u64 (s,
          "pre-record-frames") + rtf_test_stat_u64 (s,
          "frames-queued") + rtf_test_stat_u64 (s, "frames-in-flight"));
}

GstStructure *
rtf_test_get_stats (GstHarness * h)
{
  GstStructure *s = NULL;

  g_object_get (h->element, "stats", &s, NULL);
  fail_unless (s != NULL);
  fail_unless (gst_structure_has_name (s, "rtframesink-stats"));
  return s;
}

/* A time or duration field (a guint64, GstClockTime) as a gint64 for
 * arithmetic: fails when the field is of another type */
gint64
rtf_test_msg_time (GstMessage * msg, const gchar * field)
{
  guint64 v = G_MAXUINT64;

  fail_unless (gst_structure_get_uint64 (gst_message_get_structure (msg),
          field, &v), "no guint64 %s", field);
  return (gint64) v;
}

gint64
rtf_test_msg_i64 (GstMessage * msg, const gchar * field)
{
  gint64 v = -1;

  fail_unless (gst_structure_get_int64 (gst_message_get_structure (msg),
          field, &v), "no %s", field);
  return v;
}

guint64
rtf_test_msg_u64 (GstMessage * msg, const gchar * field)
{
  return rtf_test_stat_u64 (gst_message_get_structure (msg), field);
}

/* ---- test cases ------------------------------------------------------ */

TCase *
rtf_test_tcase (Suite * s, const gchar * name)
{
  TCase *tc = tcase_create (name);

  tcase_add_checked_fixture (tc, rtf_test_tmp_setup, rtf_test_tmp_teardown);
  suite_add_tcase (s, tc);
  return tc;
}
