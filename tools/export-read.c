/* rtframe-export: the frames of a recording from rtframesrc
 * (export-read.h) */
#include "export-read.h"

#include <gst/app/gstappsink.h>
#include <stdio.h>

struct ExportRead
{
  GstElement *pipeline;
  GstElement *sink;
  GstBus *bus;
};

/* The bus's warnings on stderr; an error's text (g_free), or NULL */
static gchar *
drain_bus (ExportRead * read)
{
  GstMessage *msg;
  gchar *why = NULL;

  while (why == NULL && (msg = gst_bus_pop_filtered (read->bus,
              GST_MESSAGE_ERROR | GST_MESSAGE_WARNING)) != NULL) {
    GError *error = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &error, NULL);
      why = g_strdup (error->message);
    } else {
      gst_message_parse_warning (msg, &error, NULL);
      fprintf (stderr, "rtframe-export: warning: %s\n", error->message);
    }
    g_error_free (error);
    gst_message_unref (msg);
  }
  return why;
}

/* Waits for a state change to end: FALSE with *why */
static gboolean
settle (ExportRead * read, GstStateChangeReturn ret, gchar ** why)
{
  if (ret == GST_STATE_CHANGE_ASYNC)
    ret = gst_element_get_state (read->pipeline, NULL, NULL,
        GST_CLOCK_TIME_NONE);
  if (ret == GST_STATE_CHANGE_FAILURE) {
    *why = drain_bus (read);
    if (*why == NULL)
      *why = g_strdup ("rtframesrc could not start");
    return FALSE;
  }
  return TRUE;
}

static gboolean
build (ExportRead * read, const gchar * location, const gchar * camera,
    gchar ** why)
{
  GstElement *src = gst_element_factory_make ("rtframesrc", NULL);

  read->sink = gst_element_factory_make ("appsink", NULL);
  if (src == NULL || read->sink == NULL) {
    *why = g_strdup (src == NULL ? "no rtframesrc element" : "no appsink");
    gst_clear_object (&src);
    gst_clear_object (&read->sink);
    return FALSE;
  }
  g_object_set (src, "location", location, "camera", camera, NULL);
  /* (a few frames ahead, no clock: as fast as the output takes them) */
  g_object_set (read->sink, "sync", FALSE, "max-buffers", 4, "drop", FALSE,
      NULL);
  read->pipeline = gst_pipeline_new ("rtframe-export-read");
  gst_bin_add_many (GST_BIN (read->pipeline), src, read->sink, NULL);
  gst_object_ref (read->sink);
  read->bus = gst_element_get_bus (read->pipeline);
  return gst_element_link (src, read->sink);
}

ExportRead *
export_read_start (const gchar * location, const gchar * camera,
    guint64 from, gboolean seek, gchar ** why)
{
  ExportRead *read = g_new0 (ExportRead, 1);

  if (!build (read, location, camera, why))
    goto failed;
  if (!settle (read, gst_element_set_state (read->pipeline,
              GST_STATE_PAUSED), why))
    goto failed;
  /* the frame shown at that number (export_range_choose() took a number
   * recorded): the offsets say which frames came, the caller checks */
  if (seek && !gst_element_seek (read->pipeline, 1.0, GST_FORMAT_DEFAULT,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE, GST_SEEK_TYPE_SET,
          (gint64) from, GST_SEEK_TYPE_NONE, -1)) {
    *why = g_strdup_printf ("rtframesrc refused a seek to frame %"
        G_GUINT64_FORMAT, from);
    goto failed;
  }
  if (!settle (read, gst_element_get_state (read->pipeline, NULL, NULL,
              GST_CLOCK_TIME_NONE), why)
      || !settle (read, gst_element_set_state (read->pipeline,
              GST_STATE_PLAYING), why))
    goto failed;
  return read;

failed:
  export_read_free (read);
  return NULL;
}

GstSample *
export_read_next (ExportRead * read, gchar ** why)
{
  for (;;) {
    GstSample *sample = gst_app_sink_try_pull_sample (GST_APP_SINK
        (read->sink), 100 * GST_MSECOND);

    *why = drain_bus (read);
    if (*why != NULL) {
      if (sample)
        gst_sample_unref (sample);
      return NULL;
    }
    if (sample != NULL || gst_app_sink_is_eos (GST_APP_SINK (read->sink)))
      return sample;
  }
}

void
export_read_free (ExportRead * read)
{
  if (read->pipeline) {
    gst_element_set_state (read->pipeline, GST_STATE_NULL);
    gst_object_unref (read->pipeline);
  }
  gst_clear_object (&read->sink);
  gst_clear_object (&read->bus);
  g_free (read);
}
