/* rtframe: which caps rtframesink takes, and the frame size they give.
 *
 * The video/x-raw formats are taken from the running GStreamer's own format
 * table: every raw format whose first component has 10 bits.  10-bit Bayer
 * (video/x-bayer, format=bggr10le ...) exists from GStreamer 1.24 on: it is
 * offered when the runtime is that new; a frame is then height rows of
 * GST_ROUND_UP_4 (width) 16-bit little-endian samples. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframecaps.h"

#include <string.h>

static const gchar *const bayer10_formats[] = {
  "bggr10le", "gbrg10le", "grbg10le", "rggb10le"
};

static gboolean
runtime_has_bayer10 (void)
{
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || (major == 1 && minor >= 24);
}

static void
set_size_ranges (GstStructure * s)
{
  /* no framerate field: caps with any framerate, or none, are taken */
  gst_structure_set (s,
      "width", GST_TYPE_INT_RANGE, 1, G_MAXINT,
      "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, NULL);
}

static void
append_string (GValue * list, const gchar * str)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_STRING);
  g_value_set_string (&v, str);
  gst_value_list_append_and_take_value (list, &v);
}

GstCaps *
gst_rtframe_caps_template (void)
{
  GstCaps *caps = gst_caps_new_empty ();
  const GstVideoFormat *formats;
  GValue list = G_VALUE_INIT;
  GstStructure *s;
  guint n, i;

  g_value_init (&list, GST_TYPE_LIST);
  formats = gst_video_formats_raw (&n);
  for (i = 0; i < n; i++) {
    const GstVideoFormatInfo *finfo = gst_video_format_get_info (formats[i]);

    if (finfo && GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 10)
      append_string (&list, GST_VIDEO_FORMAT_INFO_NAME (finfo));
  }
  s = gst_structure_new_empty ("video/x-raw");
  gst_structure_take_value (s, "format", &list);
  set_size_ranges (s);
  gst_caps_append_structure (caps, s);

  if (runtime_has_bayer10 ()) {
    g_value_init (&list, GST_TYPE_LIST);
    for (i = 0; i < G_N_ELEMENTS (bayer10_formats); i++)
      append_string (&list, bayer10_formats[i]);
    s = gst_structure_new_empty ("video/x-bayer");
    gst_structure_take_value (s, "format", &list);
    set_size_ranges (s);
    gst_caps_append_structure (caps, s);
  }
  return caps;
}

gboolean
gst_rtframe_format_from_caps (GstRtFrameFormat * format, const GstCaps * caps)
{
  const GstStructure *s;
  gint width, height;

  if (gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps))
    return FALSE;
  s = gst_caps_get_structure (caps, 0);
  format->fps_n = 0;
  format->fps_d = 1;
  gst_structure_get_fraction (s, "framerate", &format->fps_n, &format->fps_d);

  if (gst_structure_has_name (s, "video/x-raw")) {
    const GstVideoFormatInfo *finfo;

    if (!gst_video_info_from_caps (&format->info, caps))
      return FALSE;
    finfo = format->info.finfo;
    /* 10-bit formats only: the template says so, a caller may not */
    if (finfo == NULL || GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) != 10)
      return FALSE;
    format->is_video = TRUE;
    format->frame_size = GST_VIDEO_INFO_SIZE (&format->info);
    format->name = GST_VIDEO_FORMAT_INFO_NAME (finfo);
    format->width = GST_VIDEO_INFO_WIDTH (&format->info);
    format->height = GST_VIDEO_INFO_HEIGHT (&format->info);
    return format->frame_size > 0
        && format->frame_size <= GST_RTFRAME_MAX_FRAME_SIZE;
  }

  if (gst_structure_has_name (s, "video/x-bayer")
      && gst_structure_get_int (s, "width", &width)
      && gst_structure_get_int (s, "height", &height)
      && width > 0 && height > 0) {
    const gchar *name = gst_structure_get_string (s, "format");
    guint64 size;
    guint i;

    format->name = NULL;
    for (i = 0; name && i < G_N_ELEMENTS (bayer10_formats); i++)
      if (strcmp (name, bayer10_formats[i]) == 0)
        format->name = bayer10_formats[i];
    if (format->name == NULL)
      return FALSE;
    /* 16-bit samples, rows padded to 4 pixels, computed without overflow */
    size = ((guint64) width + 3) / 4 * 4 * 2 * (guint64) height;
    if (size > GST_RTFRAME_MAX_FRAME_SIZE)
      return FALSE;
    format->is_video = FALSE;
    gst_video_info_init (&format->info);
    format->frame_size = size;
    format->width = width;
    format->height = height;
    return TRUE;
  }
  return FALSE;
}

/* The pixels of `src` copied into `dest` (same format and size) row by
 * row, without the bytes after them that pad a row to its stride, on any
 * GStreamer.  gst_video_frame_copy() copies the pixels only on 1.22.0, but
 * on 1.26.2 whole rows, padding included, when both frames have the same
 * strides: a frame whose planes are only moved (GstVideoMeta with the
 * default strides, other offsets) then put its own padding bytes into the
 * file (I420_10LE 33x7: 30 of each frame's 832 bytes; GBR_10LE 13x11: 66 of
 * 924).  Formats whose pixels do not fill bytes of their own (v210, UYVP,
 * NV12_10LE40: pixel stride 0) copy rows of the smaller stride, as
 * gst_video_frame_copy() does on both; tiled formats are left to it. */
void
gst_rtframe_copy_pixels (GstVideoFrame * dest, const GstVideoFrame * src)
{
  const GstVideoFormatInfo *finfo = dest->info.finfo;
  guint plane;

  for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (dest); plane++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    const guint8 *sp = src->data[plane];
    guint8 *dp = dest->data[plane];
    gint ss = GST_VIDEO_FRAME_PLANE_STRIDE (src, plane);
    gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (dest, plane);
    gsize width;
    gint row, rows;

    gst_video_format_info_component (finfo, plane, comp);
    if (GST_VIDEO_FORMAT_INFO_IS_TILED (finfo) || comp[0] < 0) {
      gst_video_frame_copy_plane (dest, src, plane);
      continue;
    }
    width = (gsize) GST_VIDEO_FRAME_COMP_WIDTH (dest, comp[0]) *
        GST_VIDEO_FRAME_COMP_PSTRIDE (dest, comp[0]);
    if (width == 0)
      width = MIN (ABS (ss), ABS (ds));
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (dest, comp[0]);
    for (row = 0; row < rows; row++)
      memcpy (dp + (gssize) row * ds, sp + (gssize) row * ss, width);
  }
}
