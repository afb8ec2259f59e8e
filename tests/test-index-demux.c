/* rtframeindexdemux in a pipeline: playbin given a rotated set's index
 * (max-files deleted its first files: frames 30-59) seeks by frame
 * number, the buffers carry the wall-clock meta; the state changes a
 * player makes - PLAYING -> READY -> PLAYING again and again, to NULL
 * with the recording running, a flushing seek while playing - through
 * playbin and through the element on its own (filesrc ! rtframeindexdemux) */
#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>

#define FIRST 30
#define LAST 59

static gchar *dir, *index_path, *uri;

typedef struct
{
  GMutex lock;
  GArray *offsets;
  guint with_unix;              /* buffers carrying timestamp/x-unix */
} Seen;

static void
record_set (void)
{
  gchar *desc;
  GstElement *p;
  GstMessage *m;

  dir = g_dir_make_tmp ("rtf-index-demux.XXXXXX", NULL);
  fail_unless (dir != NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=60 ! video/x-raw,"
      "format=GRAY8,width=64,height=32,framerate=20/1 ! rtframesink "
      "location=%s/cam-%%03d.raw max-file-size=20480 max-files=3", dir);
  p = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (p != NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  index_path = g_build_filename (dir, "cam-004.raw.idx", NULL);
  uri = gst_filename_to_uri (index_path, NULL);
}

static void
remove_set (void)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  const gchar *name;

  while (d && (name = g_dir_read_name (d))) {
    gchar *path = g_build_filename (dir, name, NULL);

    g_remove (path);
    g_free (path);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  g_free (index_path);
  g_free (uri);
}

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, Seen * seen)
{
  GstCaps *unix_caps = gst_caps_new_empty_simple ("timestamp/x-unix");
  guint64 offset = GST_BUFFER_OFFSET (buf);

  g_mutex_lock (&seen->lock);
  g_array_append_val (seen->offsets, offset);
  if (gst_buffer_get_reference_timestamp_meta (buf, unix_caps))
    seen->with_unix++;
  g_mutex_unlock (&seen->lock);
  gst_caps_unref (unix_caps);
}

static GstElement *
new_fakesink (Seen * seen)
{
  GstElement *sink = gst_element_factory_make ("fakesink", NULL);

  g_object_set (sink, "sync", FALSE, "signal-handoffs", TRUE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), seen);
  return sink;
}

static void
seen_init (Seen * seen)
{
  g_mutex_init (&seen->lock);
  seen->offsets = g_array_new (FALSE, FALSE, sizeof (guint64));
  seen->with_unix = 0;
}

static void
seen_reset (Seen * seen)
{
  g_mutex_lock (&seen->lock);
  g_array_set_size (seen->offsets, 0);
  seen->with_unix = 0;
  g_mutex_unlock (&seen->lock);
}

static void
seen_clear (Seen * seen)
{
  g_array_unref (seen->offsets);
  g_mutex_clear (&seen->lock);
}

/* The frames from `from` to LAST, once each, in order */
static void
check_played (Seen * seen, guint64 from)
{
  guint i;

  g_mutex_lock (&seen->lock);
  fail_unless_equals_int (seen->offsets->len, LAST - from + 1);
  for (i = 0; i < seen->offsets->len; i++)
    fail_unless_equals_uint64 (g_array_index (seen->offsets, guint64, i),
        from + i);
  g_mutex_unlock (&seen->lock);
}

static void
wait_eos (GstElement * p)
{
  GstMessage *m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p),
      30 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (m != NULL, "no EOS");
  if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e = NULL;

    gst_message_parse_error (m, &e, NULL);
    fail ("error: %s", e->message);
  }
  gst_message_unref (m);
}

static void
set_state_wait (GstElement * p, GstState state)
{
  gst_element_set_state (p, state);
  fail_unless (gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
}

static GstElement *
new_playbin (Seen * seen)
{
  GstElement *p = gst_element_factory_make ("playbin", NULL);

  fail_unless (p != NULL);
  g_object_set (p, "uri", uri, "video-sink", new_fakesink (seen),
      "audio-sink", gst_element_factory_make ("fakesink", NULL), NULL);
  return p;
}

GST_START_TEST (test_seek_frame_number)
{
  Seen seen;
  GstElement *p;
  gint64 duration = 0;

  seen_init (&seen);
  p = new_playbin (&seen);
  set_state_wait (p, GST_STATE_PAUSED);
  fail_unless (gst_element_query_duration (p, GST_FORMAT_DEFAULT, &duration));
  fail_unless_equals_int64 (duration, LAST + 1);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_DEFAULT,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, 45));
  fail_unless (gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  seen_reset (&seen);
  gst_element_set_state (p, GST_STATE_PLAYING);
  wait_eos (p);
  check_played (&seen, 45);
  /* each frame's arrival on the wall clock, as rtframesrc attaches it */
  fail_unless_equals_int (seen.with_unix, LAST - 45 + 1);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  seen_clear (&seen);
}

GST_END_TEST;

/* Played to its end, READY, played again: every frame each time */
GST_START_TEST (test_playbin_cycles)
{
  Seen seen;
  GstElement *p;
  guint i;

  seen_init (&seen);
  p = new_playbin (&seen);
  for (i = 0; i < 3; i++) {
    seen_reset (&seen);
    gst_element_set_state (p, GST_STATE_PLAYING);
    wait_eos (p);
    check_played (&seen, FIRST);
    set_state_wait (p, GST_STATE_READY);
  }
  /* a flushing seek while playing, then NULL with the recording running */
  set_state_wait (p, GST_STATE_PAUSED);
  gst_element_set_state (p, GST_STATE_PLAYING);
  fail_unless (gst_element_seek_simple (p, GST_FORMAT_DEFAULT,
          GST_SEEK_FLAG_FLUSH, 50));
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  seen_clear (&seen);
}

GST_END_TEST;

static void
on_pad_added (GstElement * demux, GstPad * pad, GstElement * sink)
{
  GstPad *sinkpad = gst_element_get_static_pad (sink, "sink");

  fail_unless_equals_string (GST_PAD_NAME (pad), "src_0");
  fail_unless (gst_pad_link (pad, sinkpad) == GST_PAD_LINK_OK);
  gst_object_unref (sinkpad);
}

/* filesrc ! rtframeindexdemux ! fakesink: its pad goes at READY and
 * comes back; NULL from PLAYING with the internal rtframesrc running */
GST_START_TEST (test_element_cycles)
{
  Seen seen;
  GstElement *p, *src, *demux, *sink;
  guint i;

  seen_init (&seen);
  p = gst_pipeline_new (NULL);
  src = gst_element_factory_make ("filesrc", NULL);
  demux = gst_element_factory_make ("rtframeindexdemux", NULL);
  fail_unless (demux != NULL);
  sink = new_fakesink (&seen);
  g_object_set (src, "location", index_path, NULL);
  gst_bin_add_many (GST_BIN (p), src, demux, sink, NULL);
  fail_unless (gst_element_link (src, demux));
  g_signal_connect (demux, "pad-added", G_CALLBACK (on_pad_added), sink);
  for (i = 0; i < 3; i++) {
    seen_reset (&seen);
    gst_element_set_state (p, GST_STATE_PLAYING);
    wait_eos (p);
    check_played (&seen, FIRST);
    set_state_wait (p, GST_STATE_READY);
    fail_unless (gst_element_get_static_pad (demux, "src_0") == NULL);
  }
  gst_element_set_state (p, GST_STATE_PLAYING);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  seen_clear (&seen);
}

GST_END_TEST;

static Suite *
index_demux_suite (void)
{
  Suite *s = suite_create ("index-demux");
  TCase *tc = tcase_create ("general");

  /* (in each test's own process: a fork keeps no thread of the pool that
   * started the recording's tasks) */
  tcase_add_checked_fixture (tc, record_set, remove_set);
  tcase_add_test (tc, test_seek_frame_number);
  tcase_add_test (tc, test_playbin_cycles);
  tcase_add_test (tc, test_element_cycles);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (index_demux);
