/* rtframe-export: what each output takes of a recording's frames
 * (export-formats.h) */
#include "export-formats.h"

#include <string.h>

/* A Bayer format name's bits and endianness: "bggr" 8, "rggb12le" 12
 * (1.24 and later) */
static gboolean
bayer_bits (const gchar * format, guint * bits, gboolean * big)
{
  gsize len = strlen (format);

  *big = FALSE;
  if (len == 4) {
    *bits = 8;
    return TRUE;
  }
  if (len != 8 || (strcmp (format + 6, "le") && strcmp (format + 6, "be")))
    return FALSE;
  *bits = g_ascii_strtoull (format + 4, NULL, 10);
  *big = format[6] == 'b';
  return *bits > 8 && *bits <= 16;
}

static GstCaps *
bayer_as_gray (const GstStructure * s, gchar ** why)
{
  const gchar *format = gst_structure_get_string (s, "format");
  GstCaps *caps;
  gint width, height;
  gboolean big;
  guint bits;

  if (format == NULL || !bayer_bits (format, &bits, &big)
      || !gst_structure_get_int (s, "width", &width)
      || !gst_structure_get_int (s, "height", &height)) {
    *why = g_strdup_printf ("a Bayer format this program does not know: %s",
        format ? format : "(none)");
    return NULL;
  }
  caps = gst_caps_new_simple ("video/x-raw", "format", G_TYPE_STRING,
      bits == 8 ? "GRAY8" : big ? "GRAY16_BE" : "GRAY16_LE",
      "width", G_TYPE_INT, bits == 8 ? width : GST_ROUND_UP_4 (width),
      "height", G_TYPE_INT, height, NULL);
  if (gst_structure_has_field (s, "framerate"))
    gst_caps_set_value (caps, "framerate",
        gst_structure_get_value (s, "framerate"));
  return caps;
}

GstCaps *
export_caps_as_video (const GstCaps * caps, gchar ** why)
{
  const GstStructure *s = gst_caps_get_structure (caps, 0);
  GstVideoInfo info;

  if (gst_structure_has_name (s, "video/x-bayer"))
    return bayer_as_gray (s, why);
  if (!gst_video_info_from_caps (&info, caps)) {
    *why = gst_caps_to_string (caps);
    return NULL;
  }
  return gst_caps_copy (caps);
}

/* The kind of a format: 0 gray, 1 YUV, 2 RGB (a palette is RGB) */
static gint
kind_of (const GstVideoFormatInfo * f)
{
  if (GST_VIDEO_FORMAT_INFO_IS_GRAY (f))
    return 0;
  return GST_VIDEO_FORMAT_INFO_IS_YUV (f) ? 1 : 2;
}

static guint
bits_of (const GstVideoFormatInfo * f)
{
  guint i, bits = 0;

  for (i = 0; i < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (f); i++)
    bits = MAX (bits, GST_VIDEO_FORMAT_INFO_DEPTH (f, i));
  return bits;
}

/* How far candidate c is from `in`: -1 when it would lose something,
 * else a score (lower is closer) */
static gint
distance (const GstVideoFormatInfo * in, const GstVideoFormatInfo * c)
{
  gboolean alpha = GST_VIDEO_FORMAT_INFO_HAS_ALPHA (in);
  gint chroma = 0;

  if (kind_of (c) != kind_of (in) || bits_of (c) < bits_of (in)
      || (alpha && !GST_VIDEO_FORMAT_INFO_HAS_ALPHA (c)))
    return -1;
  if (kind_of (in) == 1) {
    if (c->w_sub[1] > in->w_sub[1] || c->h_sub[1] > in->h_sub[1])
      return -1;
    chroma = (in->w_sub[1] - c->w_sub[1]) + (in->h_sub[1] - c->h_sub[1]);
  }
  return chroma * 1000 + (bits_of (c) - bits_of (in)) * 10
      + (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (c) != alpha);
}

/* Each format of a caps field (a string or a list of them) */
static void
formats_of (const GstCaps * caps, GArray * out)
{
  guint i, j;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const GValue *v = gst_structure_get_value (gst_caps_get_structure (caps,
            i), "format");
    GstVideoFormat f;

    if (v && G_VALUE_HOLDS_STRING (v)) {
      f = gst_video_format_from_string (g_value_get_string (v));
      g_array_append_val (out, f);
    }
    for (j = 0; v && GST_VALUE_HOLDS_LIST (v) && j < gst_value_list_get_size
        (v); j++) {
      f = gst_video_format_from_string (g_value_get_string
          (gst_value_list_get_value (v, j)));
      g_array_append_val (out, f);
    }
  }
}

GstVideoFormat
export_lossless_format (const GstVideoFormatInfo * in,
    const GstCaps * encoder_caps, gchar ** why)
{
  GArray *formats = g_array_new (FALSE, FALSE, sizeof (GstVideoFormat));
  GstVideoFormat best = GST_VIDEO_FORMAT_UNKNOWN;
  gint best_d = G_MAXINT;
  guint i;

  formats_of (encoder_caps, formats);
  for (i = 0; i < formats->len; i++) {
    GstVideoFormat f = g_array_index (formats, GstVideoFormat, i);
    gint d;

    if (f == GST_VIDEO_FORMAT_UNKNOWN)
      continue;
    d = distance (in, gst_video_format_get_info (f));
    if (d >= 0 && d < best_d) {
      best = f;
      best_d = d;
    }
  }
  g_array_free (formats, TRUE);
  if (best == GST_VIDEO_FORMAT_UNKNOWN)
    *why = g_strdup_printf ("the encoder takes no format that holds %s "
        "without loss (%u bits%s): export it as raw, png or tiff",
        GST_VIDEO_FORMAT_INFO_NAME (in), bits_of (in),
        GST_VIDEO_FORMAT_INFO_HAS_ALPHA (in) ? ", alpha" : "");
  return best;
}

GstVideoFormat
export_still_format (const GstVideoFormatInfo * in)
{
  gboolean deep = bits_of (in) > 8;

  if (kind_of (in) == 0)
    return deep ? GST_VIDEO_FORMAT_GRAY16_BE : GST_VIDEO_FORMAT_GRAY8;
  return deep ? GST_VIDEO_FORMAT_RGBA64_BE : GST_VIDEO_FORMAT_RGB;
}
