/* rtframe: which caps rtframesink takes, and the frame size they give.
 *
 * video/x-raw: every format of the running GStreamer's own format table
 * (gst_video_formats_raw(), read at run time) that GStreamer lays out as
 * a frame of fixed size for a width and height (gst_video_info_set_format()
 * succeeds with a size): every bit depth, packed and planar, the palette
 * format RGB8P (its 1024-byte palette is the frame's second plane), the
 * packings without bytes per pixel (v210, UYVP, NV12_10LE40, IYU1) and
 * the tiled formats (whole tiles, as the decoders that make them fill a
 * buffer).  That is all 111 formats of 1.22.0 and all 136 of 1.26.2.  The
 * 10-bit ones come first in the template: an upstream element that takes
 * downstream's order gets a 10-bit format; one that keeps its own picks
 * its own first (videotestsrc ! rtframesink: ABGR64_LE, where it was
 * A444_10LE when only 10-bit formats were offered), so applications name
 * the format in a capsfilter, as every example does.
 * Refused: names the running GStreamer does not know, ENCODED (no frame
 * layout at all) and DMA_DRM (1.24+: the layout is the DRM modifier's,
 * not GStreamer's; gst_video_info_from_caps() takes it on 1.26.2 with a
 * size of 0): none of them is in that table.
 *
 * video/x-bayer: bggr, gbrg, grbg and rggb (8-bit) on any GStreamer;
 * from 1.24 on, when they exist, also 10, 12, 14 and 16 bits in 16-bit
 * samples, little- or big-endian (bggr10le ... rggb16be).  A frame is
 * `height` rows of GST_ROUND_UP_4 (width) samples, the layout of
 * videotestsrc and bayer2rgb.  gst_video_info_from_caps() takes
 * video/x-bayer on 1.22.0 and 1.26.2 but as format ENCODED with size 0,
 * so the size is computed here. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtframecaps.h"

#include <stdarg.h>
#include <string.h>

#define BAYER_DEEP(order) order "10le", order "10be", order "12le", \
    order "12be", order "14le", order "14be", order "16le", order "16be"

/* the first 4 on every GStreamer, the rest from 1.24 on */
static const gchar *const bayer_formats[] = {
  "bggr", "gbrg", "grbg", "rggb",
  BAYER_DEEP ("bggr"), BAYER_DEEP ("gbrg"), BAYER_DEEP ("grbg"),
  BAYER_DEEP ("rggb")
};

#define N_BAYER_8BIT 4

static gboolean
runtime_has_deep_bayer (void)
{
  guint major, minor, micro, nano;

  gst_version (&major, &minor, &micro, &nano);
  return major > 1 || (major == 1 && minor >= 24);
}

/* Bayer formats the running GStreamer knows: a prefix of bayer_formats */
static guint
n_bayer_formats (void)
{
  return runtime_has_deep_bayer ()? G_N_ELEMENTS (bayer_formats) : N_BAYER_8BIT;
}

/* The running GStreamer lays `format` out as a frame of fixed size.  Every
 * format of its table does on 1.22.0 and 1.26.2: this keeps out one a
 * later version adds without a layout GstVideoInfo can give. */
static gboolean
raw_format_has_fixed_size (GstVideoFormat format)
{
  GstVideoInfo info;

  return gst_video_info_set_format (&info, format, 64, 64)
      && GST_VIDEO_INFO_SIZE (&info) > 0;
}

static gboolean
raw_format_recordable (GstVideoFormat format)
{
  const GstVideoFormat *formats;
  guint n, i;

  formats = gst_video_formats_raw (&n);
  for (i = 0; i < n; i++)
    if (formats[i] == format)
      return raw_format_has_fixed_size (format);
  return FALSE;
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

/* The recordable raw formats whose first component has 10 bits (or, with
 * `ten_bit` FALSE, any other depth), in the table's order */
static void
append_raw_formats (GValue * list, gboolean ten_bit)
{
  const GstVideoFormat *formats;
  guint n, i;

  formats = gst_video_formats_raw (&n);
  for (i = 0; i < n; i++) {
    const GstVideoFormatInfo *finfo = gst_video_format_get_info (formats[i]);

    if (finfo && (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0) == 10) == ten_bit
        && raw_format_has_fixed_size (formats[i]))
      append_string (list, GST_VIDEO_FORMAT_INFO_NAME (finfo));
  }
}

static GstStructure *
structure_with_formats (const gchar * media_type, GValue * list)
{
  GstStructure *s = gst_structure_new_empty (media_type);

  gst_structure_take_value (s, "format", list);
  set_size_ranges (s);
  return s;
}

GstCaps *
gst_rtframe_caps_template (void)
{
  GstCaps *caps = gst_caps_new_empty ();
  GValue list = G_VALUE_INIT;
  guint i;

  g_value_init (&list, GST_TYPE_LIST);
  append_raw_formats (&list, TRUE);
  append_raw_formats (&list, FALSE);
  gst_caps_append_structure (caps, structure_with_formats ("video/x-raw",
          &list));

  g_value_init (&list, GST_TYPE_LIST);
  for (i = 0; i < n_bayer_formats (); i++)
    append_string (&list, bayer_formats[i]);
  gst_caps_append_structure (caps, structure_with_formats ("video/x-bayer",
          &list));
  return caps;
}

/* ---- the frame format of caps, or why there is none ------------------ */

static gboolean
refuse (gchar ** why, const gchar * fmt, ...)
G_GNUC_PRINTF (2, 3);

/* FALSE, with the reason in *why when asked for */
     static gboolean refuse (gchar ** why, const gchar * fmt, ...)
{
  va_list args;

  if (why == NULL)
    return FALSE;
  va_start (args, fmt);
  *why = g_strdup_vprintf (fmt, args);
  va_end (args);
  return FALSE;
}

static gboolean
refuse_unknown (gchar ** why, const gchar * media_type, const gchar * name)
{
  gchar *version = gst_version_string ();

  refuse (why, "%s format \"%s\" is not one that %s knows", media_type,
      name, version);
  g_free (version);
  return FALSE;
}

static gboolean
check_frame_size (gchar ** why, const gchar * name, gint width, gint height,
    guint64 size)
{
  if (size == 0 || size > GST_RTFRAME_MAX_FRAME_SIZE)
    return refuse (why, "a %s frame of %dx%d would be %" G_GUINT64_FORMAT
        " bytes; rtframesink records frames of 1 to %" G_GSIZE_FORMAT
        " bytes", name, width, height, size, GST_RTFRAME_MAX_FRAME_SIZE);
  return TRUE;
}

static gboolean
raw_from_caps (GstRtFrameFormat * format, const GstCaps * caps,
    const gchar * name, gchar ** why)
{
  GstVideoFormat vf = gst_video_format_from_string (name);
  gchar *version;

  if (vf == GST_VIDEO_FORMAT_UNKNOWN)
    return refuse_unknown (why, "video/x-raw", name);
  if (!raw_format_recordable (vf)) {
    version = gst_version_string ();
    refuse (why, "video/x-raw format \"%s\" has no frame of a fixed size "
        "in %s", name, version);
    g_free (version);
    return FALSE;
  }
  if (!gst_video_info_from_caps (&format->info, caps))
    return refuse (why, "GStreamer cannot lay out a video/x-raw frame of "
        "format \"%s\" from these caps (width, height, interlacing?)", name);
  format->is_video = TRUE;
  format->name = GST_VIDEO_FORMAT_INFO_NAME (format->info.finfo);
  format->width = GST_VIDEO_INFO_WIDTH (&format->info);
  format->height = GST_VIDEO_INFO_HEIGHT (&format->info);
  format->frame_size = GST_VIDEO_INFO_SIZE (&format->info);
  return check_frame_size (why, name, format->width, format->height,
      format->frame_size);
}

static const gchar *
bayer_name (const gchar * name, gboolean * deep)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (bayer_formats); i++)
    if (strcmp (name, bayer_formats[i]) == 0) {
      *deep = i >= N_BAYER_8BIT;
      return bayer_formats[i];
    }
  return NULL;
}

/* A frame is `height` rows of GST_ROUND_UP_4 (width) samples of 1 byte
 * (8-bit) or 2 (10 to 16 bits), in 64 bits: no overflow */
static gboolean
bayer_from_caps (GstRtFrameFormat * format, const GstStructure * s,
    const gchar * name, gchar ** why)
{
  gboolean deep = FALSE;
  gint width, height;
  guint64 size;

  format->name = bayer_name (name, &deep);
  if (format->name == NULL || (deep && !runtime_has_deep_bayer ()))
    return refuse_unknown (why, "video/x-bayer", name);
  if (!gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)
      || width <= 0 || height <= 0)
    return refuse (why, "video/x-bayer format \"%s\" without a width and "
        "height of at least 1", name);
  size = ((guint64) width + 3) / 4 * 4 * (deep ? 2 : 1) * (guint64) height;
  format->is_video = FALSE;
  gst_video_info_init (&format->info);
  format->width = width;
  format->height = height;
  format->frame_size = size;
  return check_frame_size (why, name, width, height, size);
}

gboolean
gst_rtframe_format_from_caps_full (GstRtFrameFormat * format,
    const GstCaps * caps, gchar ** why)
{
  const GstStructure *s;
  const gchar *media_type, *name;

  if (why)
    *why = NULL;
  if (gst_caps_get_size (caps) != 1 || !gst_caps_is_fixed (caps))
    return refuse (why, "caps that are not fixed: one frame format is "
        "recorded at a time");
  s = gst_caps_get_structure (caps, 0);
  media_type = gst_structure_get_name (s);
  if (!gst_structure_has_name (s, "video/x-raw")
      && !gst_structure_has_name (s, "video/x-bayer"))
    return refuse (why, "\"%s\" is not raw video (video/x-raw or "
        "video/x-bayer)", media_type);
  name = gst_structure_get_string (s, "format");
  if (name == NULL)
    return refuse (why, "%s caps without a format", media_type);
  format->fps_n = 0;
  format->fps_d = 1;
  gst_structure_get_fraction (s, "framerate", &format->fps_n, &format->fps_d);
  if (gst_structure_has_name (s, "video/x-raw"))
    return raw_from_caps (format, caps, name, why);
  return bayer_from_caps (format, s, name, why);
}

gboolean
gst_rtframe_format_from_caps (GstRtFrameFormat * format, const GstCaps * caps)
{
  return gst_rtframe_format_from_caps_full (format, caps, NULL);
}

/* Bytes of a row of `plane` that hold samples: each component's samples
 * sit in pixel groups of its pixel stride, so a row ends where the last
 * group of any of its components ends.  The first component's alone is
 * not always that: in YUY2, UYVY or Y210 of an odd width the last chroma
 * pair's group reaches past the last luma sample (YUY2 33 wide: 17 groups
 * of 4 bytes hold U and V, 68 bytes; Y ends at 66).  0 for formats whose
 * samples have no bytes of their own (pixel stride 0: v210, UYVP,
 * NV12_10LE40, IYU1). */
static gsize
row_bytes (const GstVideoFrame * frame, guint plane)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gsize end = 0;
  guint c;

  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);

    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, c) != plane)
      continue;
    if (pstride <= 0)
      return 0;
    end = MAX (end, (gsize) GST_VIDEO_FRAME_COMP_WIDTH (frame, c) * pstride);
  }
  return end;
}

/* Planes GStreamer copies whole, not row by row: the tiles of a tiled
 * format, and the palette of RGB8P (plane 1: 256 entries of 4 bytes; as
 * a component it would be `width` samples of 4 bytes in each of `height`
 * rows of stride 4, far past the palette's end) */
static gboolean
plane_copied_whole (const GstVideoFormatInfo * finfo, guint plane)
{
  return GST_VIDEO_FORMAT_INFO_IS_TILED (finfo)
      || (GST_VIDEO_FORMAT_INFO_HAS_PALETTE (finfo) && plane == 1);
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
 * gst_video_frame_copy() does on both; tiled planes and a palette are
 * left to it. */
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
    gsize width, shorter = MIN (ABS (ss), ABS (ds));
    gint row, rows;

    gst_video_format_info_component (finfo, plane, comp);
    if (plane_copied_whole (finfo, plane) || comp[0] < 0) {
      gst_video_frame_copy_plane (dest, src, plane);
      continue;
    }
    width = row_bytes (dest, plane);
    width = width == 0 ? shorter : MIN (width, shorter);
    rows = GST_VIDEO_FRAME_COMP_HEIGHT (dest, comp[0]);
    for (row = 0; row < rows; row++)
      memcpy (dp + (gssize) row * ds, sp + (gssize) row * ss, width);
  }
}
