/* rtframe-export --format mkv: Matroska with FFV1, lossless, in a
 * format of the encoder's that holds the recorded one without loss (a
 * repack: P010_10LE as I420_10LE, GRAY16_BE as GRAY16_LE, ...), the
 * recording's timestamps (export-sink.h).  The pipeline: appsrc !
 * videoconvert (no dither) ! capsfilter ! avenc_ffv1 ! matroskamux !
 * fdsink, into the file export-files.h made. */
#include "export-sink.h"
#include "export-formats.h"

#include <gst/app/gstappsrc.h>

/* The elements, and the Debian package of each */
static const gchar *const needed[][2] = {
  {"appsrc", "gstreamer1.0-plugins-base"},
  {"videoconvert", "gstreamer1.0-plugins-base"},
  {"avenc_ffv1", "gstreamer1.0-libav"},
  {"matroskamux", "gstreamer1.0-plugins-good"},
  {"fdsink", "libgstreamer1.0-0"},
};

typedef struct
{
  ExportSink sink;
  ExportFiles *files;
  gchar *out;
  gint fd;
  GstCaps *caps;                /* of the first frame, as exported */
  GstElement *pipeline, *src;
  GstBus *bus;
} ExportMkv;

gchar *
export_mkv_missing (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i][0]);

    if (f == NULL)
      return g_strdup_printf ("--format mkv needs the element %s: install "
          "%s", needed[i][0], needed[i][1]);
    gst_object_unref (f);
  }
  return NULL;
}

/* The encoder's sink caps, as this GStreamer's avenc_ffv1 has them */
static GstCaps *
encoder_caps (GstElement * enc)
{
  GstPad *pad = gst_element_get_static_pad (enc, "sink");
  GstCaps *caps = gst_pad_query_caps (pad, NULL);

  gst_object_unref (pad);
  return caps;
}

/* The format FFV1 is given for caps: UNKNOWN with *why */
static GstVideoFormat
target_of (GstElement * enc, GstCaps * caps, gchar ** why)
{
  GstCaps *takes = encoder_caps (enc);
  GstVideoInfo info;
  GstVideoFormat f;

  gst_video_info_from_caps (&info, caps);
  f = export_lossless_format (info.finfo, takes, why);
  gst_caps_unref (takes);
  return f;
}

static GstElement *
make (const gchar * factory)
{
  return gst_element_factory_make (factory, NULL);
}

/* The pipeline for frames of caps: FALSE with *why (refused: no format
 * of the encoder holds them) */
static gboolean
build (ExportMkv * self, gchar ** why)
{
  GstElement *conv = make ("videoconvert"), *filter = make ("capsfilter");
  GstElement *enc = make ("avenc_ffv1"), *mux = make ("matroskamux");
  GstElement *sink = make ("fdsink");
  GstVideoFormat f;
  GstCaps *to;

  self->pipeline = gst_pipeline_new ("rtframe-export-mkv");
  self->src = gst_object_ref (make ("appsrc"));
  gst_bin_add_many (GST_BIN (self->pipeline), self->src, conv, filter, enc,
      mux, sink, NULL);
  self->bus = gst_element_get_bus (self->pipeline);
  f = target_of (enc, self->caps, why);
  if (f == GST_VIDEO_FORMAT_UNKNOWN)
    return FALSE;
  to = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      gst_video_format_to_string (f), NULL);
  g_object_set (filter, "caps", to, NULL);
  gst_caps_unref (to);
  /* a repack only: no dither, no chroma resampling (the same chroma) */
  g_object_set (conv, "dither", 0, NULL);
  g_object_set (self->src, "caps", self->caps, "format", GST_FORMAT_TIME,
      "max-bytes", (guint64) 0, NULL);
  g_object_set (sink, "fd", self->fd, NULL);
  return gst_element_link_many (self->src, conv, filter, enc, mux, sink, NULL);
}

/* An error on the bus, if any: its text */
static gchar *
bus_error (ExportMkv * self, GstClockTime wait)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (self->bus, wait,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  GError *error = NULL;
  gchar *why = NULL;

  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    why = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)),
        error->message);
    g_error_free (error);
  }
  if (msg)
    gst_message_unref (msg);
  return why;
}

/* The first frame: the pipeline, playing */
static gboolean
start (ExportMkv * self, GstCaps * caps, ExportFailure * failure, gchar ** why)
{
  self->caps = gst_caps_ref (caps);
  if (!build (self, why)) {
    *failure = *why ? EXPORT_REFUSED : EXPORT_FAILED;
    if (*why == NULL)
      *why = g_strdup ("cannot link appsrc ! videoconvert ! avenc_ffv1 ! "
          "matroskamux ! fdsink");
    return FALSE;
  }
  if (gst_element_set_state (self->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    *why = bus_error (self, 0);
    if (*why == NULL)
      *why = g_strdup ("the encoding pipeline did not start");
    *failure = EXPORT_FAILED;
    return FALSE;
  }
  return TRUE;
}

/* Waits while the encoder is 4 frames behind: FALSE with *why at an
 * error */
static gboolean
wait_for_room (ExportMkv * self, gsize frame, gchar ** why)
{
  while (gst_app_src_get_current_level_bytes (GST_APP_SRC (self->src)) >
      4 * frame) {
    *why = bus_error (self, 20 * GST_MSECOND);
    if (*why)
      return FALSE;
  }
  *why = bus_error (self, 0);
  return *why == NULL;
}

static gboolean
mkv_frame (ExportSink * sink, GstSample * sample, guint64 number,
    ExportFailure * failure, gchar ** why)
{
  ExportMkv *self = (ExportMkv *) sink;
  GstCaps *caps = export_caps_as_video (gst_sample_get_caps (sample), why);
  GstBuffer *buf = gst_sample_get_buffer (sample);
  gboolean ok = TRUE;

  *failure = EXPORT_REFUSED;
  if (caps == NULL)
    return FALSE;
  if (self->caps == NULL)
    ok = start (self, caps, failure, why);
  else if (!gst_caps_is_equal (caps, self->caps)) {
    *why = g_strdup_printf ("the caps change at frame %" G_GUINT64_FORMAT
        ": one Matroska file holds one format; export the frames before and "
        "from it apart", number);
    ok = FALSE;
  }
  gst_caps_unref (caps);
  if (!ok)
    return FALSE;
  *failure = EXPORT_FAILED;
  if (!wait_for_room (self, gst_buffer_get_size (buf), why))
    return FALSE;
  if (gst_app_src_push_buffer (GST_APP_SRC (self->src),
          gst_buffer_ref (buf)) != GST_FLOW_OK) {
    *why = g_strdup ("the encoding pipeline stopped");
    return FALSE;
  }
  return TRUE;
}

static gboolean
mkv_finish (ExportSink * sink, ExportFailure * failure, gchar ** why)
{
  ExportMkv *self = (ExportMkv *) sink;
  gint fd = self->fd;

  *failure = EXPORT_FAILED;
  gst_app_src_end_of_stream (GST_APP_SRC (self->src));
  *why = bus_error (self, GST_CLOCK_TIME_NONE);
  gst_element_set_state (self->pipeline, GST_STATE_NULL);
  if (*why)
    return FALSE;
  self->fd = -1;
  return export_files_commit (self->files, fd, why);
}

static void
mkv_free (ExportSink * sink)
{
  ExportMkv *self = (ExportMkv *) sink;

  if (self->pipeline) {
    gst_element_set_state (self->pipeline, GST_STATE_NULL);
    gst_object_unref (self->pipeline);
  }
  gst_clear_object (&self->src);
  gst_clear_object (&self->bus);
  gst_clear_caps (&self->caps);
  g_free (self->out);
  g_free (self);
}

ExportSink *
export_mkv_new (ExportFiles * files, const gchar * out, gchar ** why)
{
  ExportMkv *self = g_new0 (ExportMkv, 1);

  self->sink.frame = mkv_frame;
  self->sink.finish = mkv_finish;
  self->sink.free = mkv_free;
  self->files = files;
  self->out = g_strdup (out);
  self->fd = export_files_create (files, out, why);
  if (self->fd < 0) {
    mkv_free (&self->sink);
    return NULL;
  }
  return &self->sink;
}
