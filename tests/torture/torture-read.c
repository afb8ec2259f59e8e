/* The torture test's reader (a child of the checker, so that a reader
 * that hangs or crashes is a finding, not the end of the run):
 * rtframesrc location=... ! appsink, every buffer checked against the
 * stamp it carries - the frame number read from its first bytes, and
 * every byte what rtf_test_fill_frame() makes for that number. */
#include <gst/app/gstappsink.h>
#include <gst/gst.h>

#include <stdio.h>
#include <string.h>

#include "rtf-test-util.h"
#include "torture.h"

/* a reader of a few hundred MB takes a few seconds; no buffer for this
 * long is a reader that hangs */
#define PULL_TIMEOUT (30 * GST_SECOND)

/* "bad ..." or NULL: what a buffer is against its stamp */
static gchar *
check_buffer (GstBuffer * buf, guint stream, gsize frame_size,
    guint8 * want, guint64 * k)
{
  GstMapInfo map;
  gchar *why = NULL;
  guint s = 0;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return g_strdup ("cannot be mapped");
  if (map.size != frame_size) {
    why = g_strdup_printf ("%" G_GSIZE_FORMAT " bytes, not a frame (%"
        G_GSIZE_FORMAT ")", map.size, frame_size);
  } else if (sscanf ((const gchar *) map.data, "S%02uF%019" G_GUINT64_FORMAT,
          &s, k) != 2 || s != stream) {
    why = g_strdup_printf ("no stamp of stream %u: begins %02x %02x %02x "
        "%02x", stream, map.data[0], map.data[1], map.data[2], map.data[3]);
  } else {
    rtf_test_fill_frame (want, frame_size, stream, *k);
    if (memcmp (want, map.data, frame_size) != 0) {
      gsize i = 0;

      while (want[i] == map.data[i])
        i++;
      why = g_strdup_printf ("stamped %" G_GUINT64_FORMAT " but differs at "
          "byte %" G_GSIZE_FORMAT, *k, i);
    }
  }
  gst_buffer_unmap (buf, &map);
  return why;
}

/* error: an error message already taken from the bus, or NULL */
static void
write_end (FILE * out, GstBus * bus, GstMessage * error)
{
  /* the appsink has EOS a moment before the bus has its message */
  GstMessage *msg = error ? error : gst_bus_timed_pop_filtered (bus,
      5 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);

  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *debug = NULL, *text;

    gst_message_parse_error (msg, &err, &debug);
    text = g_strescape (err->message, NULL);
    fprintf (out, "error %s\n", text);
    g_free (text);
    g_free (debug);
    g_error_free (err);
  } else if (msg) {
    fprintf (out, "eos\n");
  } else {
    fprintf (out, "error no EOS nor error after the last buffer\n");
  }
  if (msg)
    gst_message_unref (msg);
}

gint
torture_read_main (const gchar * location, guint64 start_index,
    guint stream, gsize frame_size, guint64 duration_ns, const gchar * out_path)
{
  GstElement *pipeline = gst_pipeline_new ("read");
  GstElement *src = gst_element_factory_make ("rtframesrc", NULL);
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  FILE *out = fopen (out_path, "w");
  guint8 *want = g_malloc (frame_size);
  guint64 n = 0, idle = 0;
  GstSample *sample;
  GstBus *bus;
  GstMessage *error = NULL;

  if (!out || !src || !sink)
    return 2;
  g_object_set (src, "location", location, "start-index", (guint) start_index,
      NULL);
  g_object_set (sink, "sync", FALSE, "max-buffers", 4, NULL);
  gst_bin_add_many (GST_BIN (pipeline), src, sink, NULL);
  gst_element_link (src, sink);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  bus = gst_pipeline_get_bus (GST_PIPELINE (pipeline));
  for (;;) {
    GstBuffer *buf;
    guint64 k = 0;
    gchar *why;

    sample = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    if (sample == NULL) {
      if (gst_app_sink_is_eos (GST_APP_SINK (sink)))
        break;
      /* an error without EOS after it (at start): no buffer will come */
      if ((error = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR)))
        break;
      if ((idle += 100 * GST_MSECOND) >= PULL_TIMEOUT) {
        fprintf (out, "error no buffer for %" G_GUINT64_FORMAT " s\n",
            PULL_TIMEOUT / GST_SECOND);
        break;
      }
      continue;
    }
    idle = 0;
    buf = gst_sample_get_buffer (sample);
    why = check_buffer (buf, stream, frame_size, want, &k);
    if (why)
      fprintf (out, "bad %" G_GUINT64_FORMAT " %s\n", n, why);
    else
      fprintf (out, "f %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT "\n", k, GST_BUFFER_OFFSET (buf),
          GST_BUFFER_PTS (buf));
    g_free (why);
    gst_sample_unref (sample);
    n++;
  }
  write_end (out, bus, error);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  fclose (out);
  g_free (want);
  (void) duration_ns;
  return 0;
}
