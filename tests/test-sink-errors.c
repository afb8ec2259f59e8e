/* gst-check tests of rtframesink on what goes wrong: errors the element
 * posts, bad input and misuse.  Real files in $TMPDIR, no fake writer. */

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <glib/gstdio.h>

#include <string.h>

#include "rtf-test-sink.h"
#include "rtf-test-util.h"

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

/* A set's first name holds a file of the user's (an earlier take, or
 * anything): a recording that ends before a frame goes there - stopped,
 * or at EOS with no frame - leaves it byte for byte (on c8d0d25 it was
 * emptied at start, and deleted when the recording failed before its
 * first frame: the torture test, seed 0xebb47e45377703b3); one that
 * writes a frame replaces it, as a set's files are */
GST_START_TEST (test_set_first_name_untouched)
{
  gchar *pattern = rtf_test_tmp_path ("take-%03d.raw");
  gchar *name0 = rtf_test_tmp_path ("take-000.raw"), *now = NULL;
  const gchar *theirs = "someone's notes, not a recording\n";
  const gchar *caps = "video/x-raw,format=GRAY8,width=64,height=16,"
      "framerate=20/1";
  GStatBuf was, is;
  guint round;
  Rec *r;

  fail_unless (g_file_set_contents (name0, theirs, -1, NULL));
  fail_unless (g_stat (name0, &was) == 0);
  for (round = 0; round < 2; round++) {
    r = rtf_test_rec_start (pattern, "max-file-size=4096", caps);
    if (round == 1)
      fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
    rtf_test_rec_stop (r);
    fail_unless (g_file_get_contents (name0, &now, NULL, NULL));
    fail_unless_equals_string (now, theirs);
    g_free (now);
    fail_unless (g_stat (name0, &is) == 0);
    fail_unless_equals_uint64 (is.st_ino, was.st_ino);
    fail_unless_equals_int64 (is.st_mtime, was.st_mtime);
  }
  rtf_test_record (pattern, "max-file-size=4096", caps, 3);
  rtf_test_assert_file (name0, 1024, 0, 3);
  g_free (name0);
  g_free (pattern);
}

GST_END_TEST;

static void
count_warning (const gchar * domain, GLogLevelFlags level,
    const gchar * message, gpointer data)
{
  g_print ("  %s: %s\n", domain, message);
  g_atomic_int_inc ((gint *) data);
}

/* A location whose name is not UTF-8 (Linux allows any bytes): recorded
 * byte-exact, and the messages naming it carry its display form (each
 * byte that is not UTF-8 as U+FFFD), never a string GstStructure warns
 * of (issue 23, #12 on the sink's side) */
GST_START_TEST (test_location_not_utf8)
{
  gchar *pattern = rtf_test_tmp_path ("caf\xe9-%03d.raw");
  gchar *file0 = rtf_test_tmp_path ("caf\xe9-000.raw");
  const gchar *caps = "video/x-raw,format=GRAY8,width=64,height=16,"
      "framerate=20/1";
  gint warnings = 0;
  guint handler = g_log_set_handler ("GStreamer", G_LOG_LEVEL_WARNING,
      count_warning, &warnings);
  GList *msgs, *l;
  Rec *r;

  r = rtf_test_rec_start (pattern, "max-file-size=4096", caps);
  rtf_test_rec_push (r, 0, 0);
  rtf_test_rec_push (r, 0, 1);
  fail_unless (gst_harness_push_event (r->h, gst_event_new_eos ()));
  g_usleep (100 * 1000);        /* the reporter posts the file messages */
  msgs = rtf_test_pop_element_messages (r->bus, "rtframesink-file-opened");
  fail_unless (msgs != NULL);
  for (l = msgs; l; l = l->next) {
    const gchar *loc = gst_structure_get_string (gst_message_get_structure
        (l->data), "location");

    fail_unless (loc != NULL && g_utf8_validate (loc, -1, NULL));
    fail_unless (strstr (loc, "caf\xef\xbf\xbd-000.raw") != NULL, "%s", loc);
  }
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
  rtf_test_rec_stop (r);
  g_log_remove_handler ("GStreamer", handler);
  fail_unless_equals_int (warnings, 0);
  rtf_test_assert_file (file0, 1024, 0, 2);
  g_free (file0);
  g_free (pattern);
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
sink_errors_suite (void)
{
  Suite *s = suite_create ("sink-errors");
  TCase *tc;

  tc = rtf_test_tcase (s, "errors");
  tcase_add_test (tc, test_error_no_location);
  tcase_add_test (tc, test_error_unwritable);
  tcase_add_test (tc, test_error_wrong_size);
  tcase_add_test (tc, test_set_first_name_untouched);
  tcase_add_test (tc, test_location_not_utf8);
  tcase_add_test (tc, test_gap_buffer);

  tc = rtf_test_tcase (s, "bad-input");
  tcase_add_test (tc, test_empty_buffers);
  tcase_add_test (tc, test_caps_without_framerate);
  tcase_add_test (tc, test_caps_change_mid_stream);
  tcase_add_test (tc, test_flush_mid_stream);
  tcase_add_test (tc, test_out_of_range_properties);
  return s;
}

GST_CHECK_MAIN (sink_errors);
