/* rtframe-export --format png|tiff: a file a frame, named by a pattern
 * with the frame's number in the recording; 8-bit formats as 8-bit gray
 * or RGB, deeper ones as 16-bit gray or RGB, a Bayer mosaic as gray
 * (export-formats.h).  Converted with GstVideoConverter (no dither),
 * encoded by export-image.c (export-sink.h). */
#include "export-sink.h"
#include "export-formats.h"
#include "export-image.h"

#include "rtf-pattern.h"

typedef struct
{
  ExportSink sink;
  ExportFiles *files;
  gchar *pattern;
  ExportImageType type;
  GstCaps *caps;                /* of the frames converted, as exported */
  GstVideoInfo in, out;
  GstVideoConverter *convert;
} ExportStills;

/* A converter from caps to the still's format (again at a caps change) */
static gboolean
set_caps (ExportStills * self, GstCaps * caps, gchar ** why)
{
  GstStructure *config;

  if (self->caps && gst_caps_is_equal (caps, self->caps))
    return TRUE;
  gst_caps_replace (&self->caps, caps);
  g_clear_pointer (&self->convert, gst_video_converter_free);
  if (!gst_video_info_from_caps (&self->in, caps)) {
    *why = g_strdup ("caps GStreamer cannot lay out");
    return FALSE;
  }
  gst_video_info_set_format (&self->out,
      export_still_format (self->in.finfo), self->in.width, self->in.height);
  /* (the converter changes the format and nothing else) */
  self->out.fps_n = self->in.fps_n;
  self->out.fps_d = self->in.fps_d;
  self->out.par_n = self->in.par_n;
  self->out.par_d = self->in.par_d;
  self->out.interlace_mode = self->in.interlace_mode;
  config = gst_structure_new ("config", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
      GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE, NULL);
  self->convert = gst_video_converter_new (&self->in, &self->out, config);
  if (self->convert == NULL)
    *why = g_strdup_printf ("no conversion from %s to %s",
        GST_VIDEO_INFO_NAME (&self->in), GST_VIDEO_INFO_NAME (&self->out));
  return self->convert != NULL;
}

/* The still of buf: its file's bytes, or NULL with *why */
static GBytes *
encode (ExportStills * self, GstBuffer * buf, gchar ** why)
{
  GstBuffer *out = gst_buffer_new_allocate (NULL, self->out.size, NULL);
  GstVideoFrame src, dst;
  GBytes *bytes = NULL;

  if (!gst_video_frame_map (&src, &self->in, buf, GST_MAP_READ)) {
    *why = g_strdup ("a frame smaller than its caps say");
    gst_buffer_unref (out);
    return NULL;
  }
  gst_video_frame_map (&dst, &self->out, out, GST_MAP_WRITE);
  gst_video_converter_frame (self->convert, &src, &dst);
  bytes = export_image_encode (self->type, &dst, why);
  gst_video_frame_unmap (&dst);
  gst_video_frame_unmap (&src);
  gst_buffer_unref (out);
  return bytes;
}

static gboolean
stills_frame (ExportSink * sink, GstSample * sample, guint64 number,
    ExportFailure * failure, gchar ** why)
{
  ExportStills *self = (ExportStills *) sink;
  GstCaps *caps = export_caps_as_video (gst_sample_get_caps (sample), why);
  gchar *path = rtf_pattern_format (self->pattern, number);
  gboolean ok = caps != NULL && set_caps (self, caps, why);
  GBytes *bytes = NULL;
  gint fd = -1;

  *failure = EXPORT_REFUSED;
  if (ok) {
    *failure = EXPORT_FAILED;
    bytes = encode (self, gst_sample_get_buffer (sample), why);
    ok = bytes != NULL;
  }
  if (ok)
    ok = (fd = export_files_create (self->files, path, why)) >= 0
        && export_files_write (fd, g_bytes_get_data (bytes, NULL),
        g_bytes_get_size (bytes), why)
        && export_files_commit (self->files, fd, why);
  if (bytes)
    g_bytes_unref (bytes);
  gst_clear_caps (&caps);
  g_free (path);
  return ok;
}

static gboolean
stills_finish (ExportSink * sink, ExportFailure * failure, gchar ** why)
{
  return TRUE;
}

static void
stills_free (ExportSink * sink)
{
  ExportStills *self = (ExportStills *) sink;

  g_clear_pointer (&self->convert, gst_video_converter_free);
  gst_clear_caps (&self->caps);
  g_free (self->pattern);
  g_free (self);
}

ExportSink *
export_stills_new (ExportFiles * files, const gchar * pattern, gboolean tiff,
    gchar ** why)
{
  ExportStills *self = g_new0 (ExportStills, 1);

  self->sink.frame = stills_frame;
  self->sink.finish = stills_finish;
  self->sink.free = stills_free;
  self->files = files;
  self->pattern = g_strdup (pattern);
  self->type = tiff ? EXPORT_IMAGE_TIFF : EXPORT_IMAGE_PNG;
  return &self->sink;
}
