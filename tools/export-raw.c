/* rtframe-export --format raw: the frames' bytes exactly as recorded,
 * concatenated, and on stdout what each is (export-sink.h) */
#include "export-sink.h"

#include <stdio.h>

typedef struct
{
  ExportSink sink;
  ExportFiles *files;
  gint fd;
  guint64 offset;               /* bytes written so far */
} ExportRaw;

/* A CSV field: the caps in quotes, a quote doubled */
static void
put_caps (const GstCaps * caps)
{
  gchar *text = gst_caps_to_string (caps), *p;

  putchar ('"');
  for (p = text; *p; p++) {
    if (*p == '"')
      putchar ('"');
    putchar (*p);
  }
  putchar ('"');
  g_free (text);
}

static void
put_time (GstClockTime t)
{
  if (GST_CLOCK_TIME_IS_VALID (t))
    printf ("%" G_GUINT64_FORMAT, t);
  putchar (',');
}

static gboolean
raw_frame (ExportSink * sink, GstSample * sample, guint64 number,
    ExportFailure * failure, gchar ** why)
{
  ExportRaw *self = (ExportRaw *) sink;
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstMapInfo map;
  gboolean ok;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ)) {
    *why = g_strdup ("cannot map a frame");
    *failure = EXPORT_FAILED;
    return FALSE;
  }
  ok = export_files_write (self->fd, map.data, map.size, why);
  gst_buffer_unmap (buf, &map);
  if (!ok) {
    *failure = EXPORT_FAILED;
    return FALSE;
  }
  printf ("%" G_GUINT64_FORMAT ",", number);
  put_time (GST_BUFFER_PTS (buf));
  put_time (GST_BUFFER_DURATION (buf));
  printf ("%" G_GUINT64_FORMAT ",%" G_GSIZE_FORMAT ",", self->offset, map.size);
  put_caps (gst_sample_get_caps (sample));
  putchar ('\n');
  self->offset += map.size;
  return TRUE;
}

static gboolean
raw_finish (ExportSink * sink, ExportFailure * failure, gchar ** why)
{
  ExportRaw *self = (ExportRaw *) sink;
  gint fd = self->fd;

  self->fd = -1;
  *failure = EXPORT_FAILED;
  if (fflush (stdout) != 0) {
    *why = g_strdup ("writing the frames' list on stdout failed");
    return FALSE;
  }
  return export_files_commit (self->files, fd, why);
}

static void
raw_free (ExportSink * sink)
{
  g_free (sink);
}

ExportSink *
export_raw_new (ExportFiles * files, const gchar * out, gchar ** why)
{
  ExportRaw *self = g_new0 (ExportRaw, 1);

  self->sink.frame = raw_frame;
  self->sink.finish = raw_finish;
  self->sink.free = raw_free;
  self->files = files;
  self->fd = export_files_create (files, out, why);
  if (self->fd < 0) {
    g_free (self);
    return NULL;
  }
  printf ("frame,pts,duration,byte_offset,size,caps\n");
  return &self->sink;
}
